/** NATS subjects (request/reply, queue group per service) and JetStream names. */
export const INTENT_SERVICE_QUEUE = 'intent-service';

export const INTENT_CREATE = 'intent.create';
export const INTENT_GET = 'intent.get';
export const INTENT_SEARCH = 'intent.search';
export const INTENT_CANCEL = 'intent.cancel';
/** Answers `{ ok: true }` when the service and its database are up. */
export const INTENT_HEALTH = 'intent.health';

/** JetStream stream holding every intent lifecycle event, published from the intent outbox. */
export const INTENT_EVENTS_STREAM = 'INTENT_EVENTS';
export const INTENT_EVENTS_SUBJECTS = 'intent.events.>';
export function intentEventSubject(type: string): string {
  return `intent.events.${type}`;
}

/** NATS message header carrying the HTTP request id into every service's logs. */
export const REQUEST_ID_HEADER = 'x-request-id';

export const SIMULATION_SERVICE_QUEUE = 'simulation-service';
export const SIMULATION_SIMULATE = 'simulation.simulate';
/** Answers `{ ok: true, chains: number[] }` when the service is up. */
export const SIMULATION_HEALTH = 'simulation.health';
