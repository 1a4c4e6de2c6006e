import { z } from 'zod';
import { ChainHealthSchema } from './gateway.js';
import { BulkCancelResultSchema, IntentRecordSchema, NotificationSecretSchema } from './intent-record.js';
import { INTENT_KINDS } from './intent-vocabulary.js';
import { SimulatedCallSchema, SimulationResultSchema } from './simulation.js';

/*
 * The NATS request subjects, each declared once: who serves it, the message it takes and the
 * reply it gives (zod schemas; the message and reply types are inferred from them), and how it
 * is reached. test/integration/route-table.spec.ts checks every entry against the service's
 * handler, its callers, the OpenAPI document and the SDK (docs/design/route-table.md).
 */

export type ServiceName = 'intent' | 'simulation' | 'payout' | 'orderflow';
/** A process that sends requests: the gateway or a service. */
export type Caller = 'gateway' | ServiceName;

export interface RouteDeclaration<Req extends z.ZodType, Rep extends z.ZodType> {
  subject: string;
  service: ServiceName;
  /** The message (the envelope the caller sends; bodies the service checks with its own options stay `unknown`). */
  request: Req;
  /** One reply; for a `stream` route, each value of the stream. */
  reply: Rep;
  /** Who requests it (their source names the route: `NATS_ROUTES.<key>`). */
  callers: readonly Caller[];
  /** The public HTTP routes forwarding to it (`POST /v1/intent`, OpenAPI form): documented and in the SDK. */
  http?: readonly string[];
  /** Why it has no public HTTP route. */
  internal?: string;
  /** Answered with several values (the handler returns an Observable). */
  stream?: boolean;
}

export interface NatsRoute<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> extends RouteDeclaration<Req, Rep> {
  http: readonly string[];
}

export function defineRoute<Req extends z.ZodType, Rep extends z.ZodType>(declaration: RouteDeclaration<Req, Rep>): NatsRoute<Req, Rep> {
  if ((declaration.http?.length ?? 0) === 0 && !declaration.internal) throw new Error(`${declaration.subject}: an internal route says why it is internal`);
  return { ...declaration, http: declaration.http ?? [] };
}

/** What a caller sends on the route. */
export type RequestOf<R extends NatsRoute> = z.input<R['request']>;
/** What the service's handler receives once the message is checked. */
export type MessageOf<R extends NatsRoute> = z.output<R['request']>;
/** What the service answers (each value, for a stream). */
export type ReplyOf<R extends NatsRoute> = z.output<R['reply']>;

// ---- messages and replies shared by several routes ----

const tenantId = z.string().min(1);
const TenantScopedSchema = z.object({ tenantId });
/** Who asks the payout service: a tenant, or an operator (`admin` scope) who sees everything. */
export const PayoutViewerSchema = z.object({
  tenantId,
  admin: z.boolean(),
  /** The API key that asks (operators' actions on other tenants' sources are audited with it). */
  keyId: z.string().optional(),
});
const PayoutBodySchema = z.object({ viewer: PayoutViewerSchema, body: z.unknown() });
const PayoutIdSchema = z.object({ viewer: PayoutViewerSchema, id: z.unknown() });
const PayoutIdBodySchema = PayoutIdSchema.extend({ body: z.unknown() });
/** JSON text rendered by the database, passed through to the client. */
export const RawJsonReplySchema = z.object({ json: z.string(), nextCursor: z.string().nullish() });
export const HealthMessageSchema = z.object({});
export const HealthReplySchema = z.object({
  ok: z.boolean(),
  /** The chains this replica reads, each endpoint as its last check found it. */
  chains: z.array(ChainHealthSchema).optional(),
});
const CreateIntentMessageSchema = TenantScopedSchema.extend({
  idempotencyKey: z.string().nullable(),
  body: z.unknown(),
  /** `wallet`: the body is a pre-signed wallet intent (`POST /v1/wallet/intent`). Default `bot`. */
  kind: z.enum(INTENT_KINDS).optional(),
});
const SimulateMessageSchema = z.object({ body: z.unknown() });
/** The JSON-RPC reply as text (exact integers; passed through to the client). */
const OrderflowReplySchema = z.object({ json: z.string() });
const health = (service: ServiceName, subject: string) =>
  defineRoute({ subject, service, request: HealthMessageSchema, reply: HealthReplySchema, callers: ['gateway'], http: ['GET /health/services'] });

export const NATS_ROUTES = {
  intentCreate: defineRoute({
    subject: 'intent.create',
    service: 'intent',
    request: CreateIntentMessageSchema,
    reply: z.object({ intent: IntentRecordSchema, replayed: z.boolean() }),
    callers: ['gateway'],
    http: ['POST /v1/intent', 'POST /v1/wallet/intent'],
  }),
  /** An exit intent (`body`: the request, checked again by the service with its chains); read, searched and cancelled as an intent. */
  exitCreate: defineRoute({
    subject: 'exit.create',
    service: 'intent',
    request: CreateIntentMessageSchema.omit({ kind: true }),
    reply: z.object({ intent: IntentRecordSchema, replayed: z.boolean() }),
    callers: ['gateway'],
    http: ['POST /v1/exit'],
  }),
  /** All or nothing; `body` is the JSON array of intents. */
  intentCreateBatch: defineRoute({
    subject: 'intent.create-batch',
    service: 'intent',
    request: CreateIntentMessageSchema.omit({ kind: true }),
    reply: z.object({ intents: z.array(IntentRecordSchema), replayed: z.boolean() }),
    callers: ['gateway'],
    http: ['POST /v1/intents'],
  }),
  intentGet: defineRoute({
    subject: 'intent.get',
    service: 'intent',
    request: TenantScopedSchema.extend({ id: z.string() }),
    reply: IntentRecordSchema,
    callers: ['gateway'],
    http: ['GET /v1/intent/{id}'],
  }),
  intentSearch: defineRoute({
    subject: 'intent.search',
    service: 'intent',
    /** `tenantWide`: the body may omit `addresses` (TenantSearchIntentsRequestSchema), every wallet of the tenant. */
    request: TenantScopedSchema.extend({ body: z.unknown(), tenantWide: z.boolean().optional() }),
    /** `intentsJson`: the page as a JSON array of IntentRecord, newest first, as the database rendered it. */
    reply: z.object({ intentsJson: z.string(), nextCursor: z.string().nullable() }),
    callers: ['gateway'],
    http: ['POST /v1/intents/search'],
  }),
  intentCancel: defineRoute({
    subject: 'intent.cancel',
    service: 'intent',
    request: TenantScopedSchema.extend({ id: z.string() }),
    reply: IntentRecordSchema,
    callers: ['gateway'],
    http: ['POST /v1/intent/{id}/cancel'],
  }),
  intentCancelBatch: defineRoute({
    subject: 'intent.cancel-batch',
    service: 'intent',
    request: TenantScopedSchema.extend({ body: z.unknown() }),
    reply: z.object({ results: z.array(BulkCancelResultSchema) }),
    callers: ['gateway'],
    http: ['DELETE /v1/intents', 'POST /v1/intents/cancel'],
  }),
  intentNotificationSecret: defineRoute({
    subject: 'intent.notifications.secret',
    service: 'intent',
    request: TenantScopedSchema,
    reply: NotificationSecretSchema,
    callers: ['gateway'],
    http: ['GET /v1/intents/notifications/secret'],
  }),
  intentNotificationSecretRotate: defineRoute({
    subject: 'intent.notifications.secret.rotate',
    service: 'intent',
    request: TenantScopedSchema,
    reply: NotificationSecretSchema,
    callers: ['gateway'],
    http: ['POST /v1/intents/notifications/secret/rotate'],
  }),
  intentHealth: health('intent', 'intent.health'),

  simulationSimulate: defineRoute({
    subject: 'simulation.simulate',
    service: 'simulation',
    request: SimulateMessageSchema,
    reply: SimulationResultSchema,
    callers: ['gateway', 'intent', 'payout', 'orderflow'],
    http: ['POST /v1/simulate'],
  }),
  /** The first call's result as soon as it is final (`first`), then the whole result. */
  simulationSimulateStream: defineRoute({
    subject: 'simulation.simulate.stream',
    service: 'simulation',
    request: SimulateMessageSchema,
    reply: z.union([z.object({ first: SimulatedCallSchema, blockNumber: z.string() }), z.object({ result: SimulationResultSchema })]),
    callers: ['intent'],
    internal: "the intent service's token probes: it recognises a pending launch on the first call",
    stream: true,
  }),
  simulationHealth: health('simulation', 'simulation.health'),

  payoutEntriesByTx: defineRoute({
    subject: 'payout.entries.by-tx',
    service: 'payout',
    request: z.object({ viewer: PayoutViewerSchema, body: z.object({ hash: z.unknown() }) }),
    reply: RawJsonReplySchema,
    callers: ['gateway'],
    http: ['GET /v1/payouts/tx/{hash}'],
  }),
  payoutEntriesList: defineRoute({
    subject: 'payout.entries.list',
    service: 'payout',
    /** `body`: the checked query (ListEntriesFilterSchema). */
    request: PayoutBodySchema,
    reply: RawJsonReplySchema,
    callers: ['gateway'],
    http: ['GET /v1/payouts'],
  }),
  /** `body`: a MEV-capture event; its id makes the entry idempotent. */
  payoutEntryRecord: defineRoute({
    subject: 'payout.entries.record',
    service: 'payout',
    request: PayoutBodySchema,
    reply: RawJsonReplySchema.extend({ created: z.boolean() }),
    callers: ['gateway'],
    http: ['POST /v1/payouts/entries'],
  }),
  payoutSourceCashback: defineRoute({
    subject: 'payout.source.cashback',
    service: 'payout',
    request: PayoutIdSchema,
    reply: RawJsonReplySchema,
    callers: ['gateway'],
    http: ['GET /v1/cashback/source/{id}'],
  }),
  payoutSourceRegister: defineRoute({
    subject: 'payout.source.register',
    service: 'payout',
    request: z.object({ id: z.unknown(), tenantId: z.unknown() }),
    reply: z.object({ id: z.string(), tenantId: z.string() }),
    callers: ['gateway'],
    http: ['POST /v1/sources'],
  }),
  /** `{viewer, id}` → the source when the viewer may act on it (NotFound otherwise). */
  payoutSourceGet: defineRoute({
    subject: 'payout.source.get',
    service: 'payout',
    request: PayoutIdSchema,
    reply: z.object({ id: z.string(), tenantId: z.string().nullable() }),
    callers: ['gateway'],
    internal: "the gateway's check that a key may send for `POST /v1/rpc?source=`",
  }),
  payoutRequest: defineRoute({
    subject: 'payout.payouts.request',
    service: 'payout',
    request: PayoutIdBodySchema,
    reply: RawJsonReplySchema,
    callers: ['gateway'],
    http: ['POST /v1/cashback/source/{id}/payout'],
  }),
  payoutGet: defineRoute({
    subject: 'payout.payouts.get',
    service: 'payout',
    request: PayoutIdSchema,
    reply: RawJsonReplySchema,
    callers: ['gateway'],
    http: ['GET /v1/cashback/payout/{id}'],
  }),
  /** A source's latest payouts (newest first, at most 100). */
  payoutSourcePayouts: defineRoute({
    subject: 'payout.source.payouts',
    service: 'payout',
    request: PayoutIdSchema,
    reply: RawJsonReplySchema,
    callers: ['gateway'],
    http: ['GET /v1/cashback/source/{id}/payouts'],
  }),
  payoutTransition: defineRoute({
    subject: 'payout.payouts.transition',
    service: 'payout',
    request: PayoutIdBodySchema,
    reply: RawJsonReplySchema,
    callers: ['gateway'],
    http: ['POST /v1/cashback/payout/{id}/status'],
  }),
  /** The treasury paying `chainId`'s payouts (NotFound when the service does not settle it). */
  payoutTreasury: defineRoute({
    subject: 'payout.treasury',
    service: 'payout',
    request: z.object({ chainId: z.unknown() }),
    reply: z.object({ chainId: z.number(), address: z.string() }),
    callers: ['orderflow'],
    internal: "the orderflow service's default beneficiary of bids",
  }),
  payoutHealth: health('payout', 'payout.health'),

  /** A wallet's JSON-RPC body, for a source its tenant owns (checked by the gateway). */
  orderflowRpc: defineRoute({
    subject: 'orderflow.rpc',
    service: 'orderflow',
    request: z.object({ tenantId, sourceId: z.string(), chainId: z.number().nullable(), useMempool: z.boolean(), body: z.unknown() }),
    reply: OrderflowReplySchema,
    callers: ['gateway'],
    http: ['POST /v1/rpc'],
  }),
  /** A searcher's JSON-RPC body; `searcher` is the address that signed it (lowercase). */
  orderflowMev: defineRoute({
    subject: 'orderflow.mev',
    service: 'orderflow',
    request: z.object({ searcher: z.string(), body: z.unknown() }),
    reply: OrderflowReplySchema,
    callers: ['gateway'],
    http: ['POST /v1/mev'],
  }),
  orderflowHealth: health('orderflow', 'orderflow.health'),
} satisfies Record<string, NatsRoute>;

export type RouteKey = keyof typeof NATS_ROUTES;

// ---- the message and reply types, by their old names ----

type R = typeof NATS_ROUTES;
export type PayoutViewer = z.output<typeof PayoutViewerSchema>;
export type TenantScoped = z.output<typeof TenantScopedSchema>;
export type HealthReply = z.output<typeof HealthReplySchema>;
export type RawJsonReply = z.output<typeof RawJsonReplySchema>;
export type CreateIntentMessage = MessageOf<R['intentCreate']>;
export type CreateIntentReply = ReplyOf<R['intentCreate']>;
export type CreateIntentsMessage = MessageOf<R['intentCreateBatch']>;
export type CreateExitMessage = MessageOf<R['exitCreate']>;
export type CreateIntentsReply = ReplyOf<R['intentCreateBatch']>;
export type GetIntentMessage = MessageOf<R['intentGet']>;
export type CancelIntentMessage = MessageOf<R['intentCancel']>;
export type CancelIntentsMessage = MessageOf<R['intentCancelBatch']>;
export type CancelIntentsReply = ReplyOf<R['intentCancelBatch']>;
export type SearchIntentsMessage = MessageOf<R['intentSearch']>;
export type SearchIntentsReply = ReplyOf<R['intentSearch']>;
export type SimulateMessage = MessageOf<R['simulationSimulate']>;
export type SimulationStreamed = ReplyOf<R['simulationSimulateStream']>;
export type OrderflowRpcMessage = MessageOf<R['orderflowRpc']>;
export type OrderflowMevMessage = MessageOf<R['orderflowMev']>;
export type OrderflowReply = ReplyOf<R['orderflowRpc']>;
/** A payout-service message: the viewer and a body the service checks. */
export interface PayoutMessage<T = unknown> {
  viewer: PayoutViewer;
  body: T;
}

// ---- the subjects, by the names the code used before the table (new routes need none) ----

export const INTENT_CREATE = NATS_ROUTES.intentCreate.subject;
export const EXIT_CREATE = NATS_ROUTES.exitCreate.subject;
export const INTENT_GET = NATS_ROUTES.intentGet.subject;
export const INTENT_SEARCH = NATS_ROUTES.intentSearch.subject;
export const INTENT_CANCEL = NATS_ROUTES.intentCancel.subject;
export const INTENT_CREATE_BATCH = NATS_ROUTES.intentCreateBatch.subject;
export const INTENT_CANCEL_BATCH = NATS_ROUTES.intentCancelBatch.subject;
export const INTENT_HEALTH = NATS_ROUTES.intentHealth.subject;
export const INTENT_NOTIFICATION_SECRET = NATS_ROUTES.intentNotificationSecret.subject;
export const INTENT_NOTIFICATION_SECRET_ROTATE = NATS_ROUTES.intentNotificationSecretRotate.subject;
export const SIMULATION_SIMULATE = NATS_ROUTES.simulationSimulate.subject;
export const SIMULATION_SIMULATE_STREAM = NATS_ROUTES.simulationSimulateStream.subject;
export const SIMULATION_HEALTH = NATS_ROUTES.simulationHealth.subject;
export const PAYOUT_HEALTH = NATS_ROUTES.payoutHealth.subject;
export const PAYOUT_ENTRIES_BY_TX = NATS_ROUTES.payoutEntriesByTx.subject;
export const PAYOUT_ENTRIES_LIST = NATS_ROUTES.payoutEntriesList.subject;
export const PAYOUT_ENTRY_RECORD = NATS_ROUTES.payoutEntryRecord.subject;
export const PAYOUT_SOURCE_CASHBACK = NATS_ROUTES.payoutSourceCashback.subject;
export const PAYOUT_SOURCE_REGISTER = NATS_ROUTES.payoutSourceRegister.subject;
export const PAYOUT_SOURCE_GET = NATS_ROUTES.payoutSourceGet.subject;
export const PAYOUT_REQUEST = NATS_ROUTES.payoutRequest.subject;
export const PAYOUT_GET = NATS_ROUTES.payoutGet.subject;
export const PAYOUT_SOURCE_PAYOUTS = NATS_ROUTES.payoutSourcePayouts.subject;
export const PAYOUT_TRANSITION = NATS_ROUTES.payoutTransition.subject;
export const PAYOUT_TREASURY = NATS_ROUTES.payoutTreasury.subject;
export const ORDERFLOW_RPC = NATS_ROUTES.orderflowRpc.subject;
export const ORDERFLOW_MEV = NATS_ROUTES.orderflowMev.subject;
export const ORDERFLOW_HEALTH = NATS_ROUTES.orderflowHealth.subject;
