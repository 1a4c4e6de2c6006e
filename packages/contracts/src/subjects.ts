/** NATS subjects (request/reply, queue group per service) and JetStream names. */
export const INTENT_SERVICE_QUEUE = 'intent-service';

export const INTENT_CREATE = 'intent.create';
export const INTENT_GET = 'intent.get';
export const INTENT_SEARCH = 'intent.search';
export const INTENT_CANCEL = 'intent.cancel';
/** Batch create (all or nothing) and bulk cancel. */
export const INTENT_CREATE_BATCH = 'intent.create-batch';
export const INTENT_CANCEL_BATCH = 'intent.cancel-batch';
/** Answers `{ ok: true }` when the service and its database are up. */
export const INTENT_HEALTH = 'intent.health';
/** `{tenantId}` → `{secret}`: the key the tenant's webhooks verify notification signatures with. */
export const INTENT_NOTIFICATION_SECRET = 'intent.notifications.secret';
/** `{tenantId}` → `{secret}`: replaces the tenant's signing secret with a new one, returned. */
export const INTENT_NOTIFICATION_SECRET_ROTATE = 'intent.notifications.secret.rotate';

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
/**
 * The same simulation, answered twice (services only, never the public API): the first call's
 * result as soon as it is final (`SimulationStreamed`'s `first`), then the whole result.
 */
export const SIMULATION_SIMULATE_STREAM = 'simulation.simulate.stream';
/** Answers `{ ok: true, chains: number[] }` when the service is up. */
export const SIMULATION_HEALTH = 'simulation.health';

export const PAYOUT_SERVICE_QUEUE = 'payout-service';
export const PAYOUT_HEALTH = 'payout.health';
export const PAYOUT_ENTRIES_BY_TX = 'payout.entries.by-tx';
export const PAYOUT_ENTRIES_LIST = 'payout.entries.list';
export const PAYOUT_ENTRY_RECORD = 'payout.entries.record';
export const PAYOUT_SOURCE_CASHBACK = 'payout.source.cashback';
export const PAYOUT_SOURCE_REGISTER = 'payout.source.register';
export const PAYOUT_REQUEST = 'payout.payouts.request';
export const PAYOUT_GET = 'payout.payouts.get';
/** A source's latest payouts (newest first, at most 100). */
export const PAYOUT_SOURCE_PAYOUTS = 'payout.source.payouts';
export const PAYOUT_TRANSITION = 'payout.payouts.transition';

/** JetStream stream of MEV-capture events (`mev.captured.<chainId>`), consumed durably by the payout service. */
export const MEV_CAPTURE_STREAM = 'MEV_CAPTURE';
export const MEV_CAPTURE_SUBJECTS = 'mev.captured.>';
export function mevCaptureSubject(chainId: number): string {
  return `mev.captured.${chainId}`;
}
/** Where an invalid MEV-capture event goes, with its reason (stream MEV_CAPTURE_DLQ). */
export const MEV_CAPTURE_DLQ_STREAM = 'MEV_CAPTURE_DLQ';
export const MEV_CAPTURE_DLQ_SUBJECT = 'mev.dlq';
/** `{viewer, id}` → `{id, tenantId}` when the viewer may act on the registered source (NotFound otherwise). */
export const PAYOUT_SOURCE_GET = 'payout.source.get';
/** `{chainId}` → `{chainId, address}`: the treasury paying that chain's payouts (NotFound when the service does not settle it). */
export const PAYOUT_TREASURY = 'payout.treasury';

export const ORDERFLOW_SERVICE_QUEUE = 'orderflow-service';
/** A wallet's JSON-RPC request (`POST /v1/rpc`): OrderflowRpcMessage → OrderflowReply. */
export const ORDERFLOW_RPC = 'orderflow.rpc';
/** A searcher's JSON-RPC request (`POST /v1/mev`): OrderflowMevMessage → OrderflowReply. */
export const ORDERFLOW_MEV = 'orderflow.mev';
/** Answers `{ ok: true, chains }` when the service and its database are up. */
export const ORDERFLOW_HEALTH = 'orderflow.health';
/** Hints of pending private transactions, core NATS (live only), one subject per chain; the data is the SSE event's JSON. */
export const ORDERFLOW_HINTS_SUBJECTS = 'orderflow.hints.>';
export function orderflowHintSubject(chainId: number): string {
  return `orderflow.hints.${chainId}`;
}
