/** NATS queue groups (one per service), event subjects and JetStream names; request subjects are in routes.ts. */
export const INTENT_SERVICE_QUEUE = 'intent-service';

/** JetStream stream holding every intent lifecycle event, published from the intent outbox. */
export const INTENT_EVENTS_STREAM = 'INTENT_EVENTS';
export const INTENT_EVENTS_SUBJECTS = 'intent.events.>';
export function intentEventSubject(type: string): string {
  return `intent.events.${type}`;
}

/** NATS message header carrying the HTTP request id into every service's logs. */
export const REQUEST_ID_HEADER = 'x-request-id';

export const SIMULATION_SERVICE_QUEUE = 'simulation-service';
export const PAYOUT_SERVICE_QUEUE = 'payout-service';

/** JetStream stream of MEV-capture events (`mev.captured.<chainId>`), consumed durably by the payout service. */
export const MEV_CAPTURE_STREAM = 'MEV_CAPTURE';
export const MEV_CAPTURE_SUBJECTS = 'mev.captured.>';
export function mevCaptureSubject(chainId: number): string {
  return `mev.captured.${chainId}`;
}
/** Where an invalid MEV-capture event goes, with its reason (stream MEV_CAPTURE_DLQ). */
export const MEV_CAPTURE_DLQ_STREAM = 'MEV_CAPTURE_DLQ';
export const MEV_CAPTURE_DLQ_SUBJECT = 'mev.dlq';

export const ORDERFLOW_SERVICE_QUEUE = 'orderflow-service';
/** Hints of pending private transactions, core NATS (live only), one subject per chain; the data is the SSE event's JSON. */
export const ORDERFLOW_HINTS_SUBJECTS = 'orderflow.hints.>';
export function orderflowHintSubject(chainId: number): string {
  return `orderflow.hints.${chainId}`;
}
