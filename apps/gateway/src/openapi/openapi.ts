import {
  BulkCancelRequestSchema,
  BulkCancelResultSchema,
  CashbackSchema,
  DashboardUrlSchema,
  ErrorBodySchema,
  IntentEventSchema,
  IntentIdSchema,
  IntentLaunchSchema,
  IntentRecordSchema,
  IntentStatusDataSchema,
  LivenessSchema,
  MevCaptureEventSchema,
  NotificationSecretSchema,
  PayoutBatchSchema,
  PayoutEntrySchema,
  PayoutSchema,
  PayoutTransitionSchema,
  ReadinessSchema,
  RegisteredSourceSchema,
  RegisterSourceSchema,
  RequestPayoutSchema,
  SearchIntentsRequestSchema,
  ServicesHealthSchema,
  JsonRpcBodySchema,
  JsonRpcReplySchema,
  SimulateRequestSchema,
  SimulationResultSchema,
} from '@tradeinfra/contracts';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { SCOPES } from '../auth/scopes.js';
import { CreateExitSchema, EXIT_ROUTES } from './exit-routes.js';
import { CreateIntentSchema, CreateIntentsSchema, CreateWalletIntentSchema, INTENT_ROUTES } from './intent-routes.js';
import { ORDERFLOW_ROUTES } from './orderflow-routes.js';
import { OTHER_ROUTES } from './other-routes.js';
import { PAYOUT_ROUTES } from './payout-routes.js';
import type { ResponseSpec, RouteSpec } from './route-table.js';

type Json = Record<string, unknown>;

/** Every route the gateway serves, in the document's order. */
export const ROUTES: readonly RouteSpec[] = [...INTENT_ROUTES, ...EXIT_ROUTES, ...PAYOUT_ROUTES, ...ORDERFLOW_ROUTES, ...OTHER_ROUTES];

/** Request bodies, named in `components.schemas` (their input side: what a client sends). */
const REQUEST_COMPONENTS: Record<string, z.ZodType> = {
  CreateIntent: CreateIntentSchema,
  CreateWalletIntent: CreateWalletIntentSchema,
  CreateIntents: CreateIntentsSchema,
  CreateExit: CreateExitSchema,
  BulkCancel: BulkCancelRequestSchema,
  IntentId: IntentIdSchema,
  SearchIntents: SearchIntentsRequestSchema,
  Simulate: SimulateRequestSchema,
  MevCaptureEvent: MevCaptureEventSchema,
  RequestPayout: RequestPayoutSchema,
  PayoutTransition: PayoutTransitionSchema,
  RegisterSource: RegisterSourceSchema,
  JsonRpcRequest: JsonRpcBodySchema,
};

/** Answers, named in `components.schemas`. */
const RESPONSE_COMPONENTS: Record<string, z.ZodType> = {
  Intent: IntentRecordSchema,
  IntentLaunch: IntentLaunchSchema,
  StatusData: IntentStatusDataSchema,
  BulkCancelResult: BulkCancelResultSchema,
  Notification: IntentEventSchema,
  NotificationSecret: NotificationSecretSchema,
  SimulationResult: SimulationResultSchema,
  PayoutEntry: PayoutEntrySchema,
  Payout: PayoutSchema,
  PayoutBatch: PayoutBatchSchema,
  Cashback: CashbackSchema,
  RegisteredSource: RegisteredSourceSchema,
  DashboardUrl: DashboardUrlSchema,
  Liveness: LivenessSchema,
  Readiness: ReadinessSchema,
  ServicesHealth: ServicesHealthSchema,
  JsonRpcReply: JsonRpcReplySchema,
  Error: ErrorBodySchema,
};

/**
 * Zod schemas turned into JSON Schema in one pass (`z.toJSONSchema` over a registry), so named
 * ones become `$ref`s wherever they appear. `use` hands out a placeholder that `convert` fills.
 */
class SchemaSet {
  private readonly registry = z.registry<{ id: string }>();
  private readonly pending: Array<[placeholder: Json, id: string]> = [];
  private readonly named = new Map<z.ZodType, string>();
  private readonly inline = new Map<z.ZodType, string>();

  constructor(
    private readonly io: 'input' | 'output',
    components: Record<string, z.ZodType>,
  ) {
    for (const [id, schema] of Object.entries(components)) {
      this.registry.add(schema, { id });
      this.named.set(schema, id);
    }
  }

  use(schema: z.ZodType): Json {
    const id = this.named.get(schema);
    if (id !== undefined) return { $ref: ref(id) };
    let inline = this.inline.get(schema);
    if (inline === undefined) {
      inline = `~inline${this.inline.size}`;
      this.registry.add(schema, { id: inline });
      this.inline.set(schema, inline);
    }
    const placeholder: Json = {};
    this.pending.push([placeholder, inline]);
    return placeholder;
  }

  /** Fills the placeholders; answers the named schemas. */
  convert(): Record<string, Json> {
    const { schemas } = z.toJSONSchema(this.registry, { io: this.io, unrepresentable: 'any', uri: ref }) as { schemas: Record<string, Json> };
    if ('__shared' in schemas) throw new Error('a schema is shared in a way JSON Schema $defs would be needed for');
    for (const [id, json] of Object.entries(schemas)) {
      const dangling = /"\$ref":"[^"]*\/(~inline\d+)"/.exec(JSON.stringify(json));
      if (dangling) throw new Error(`${id} holds a schema a route uses on its own (${dangling[1]}): name it in the components`);
    }
    const clean = (json: Json): Json => {
      const { $schema: _schema, $id: _id, ...rest } = json;
      return rest;
    };
    for (const [placeholder, id] of this.pending) Object.assign(placeholder, structuredClone(clean(schemas[id]!)));
    return Object.fromEntries(Object.entries(schemas).flatMap(([id, json]) => (id.startsWith('~') ? [] : [[id, clean(json)]])));
  }
}

const ref = (id: string) => `#/components/schemas/${id}`;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'ValidationError: malformed JSON, wrong types, out-of-range values, unknown fields, text with NUL or that is not UTF-8 (details name the field: `buyAmount`, `query.limit`, `path`)',
  401: 'Unauthorized: missing, unknown or revoked API key (with WWW-Authenticate)',
  403: 'Forbidden: the key lacks the scope',
  404: 'NotFound: unknown id (or another tenant’s)',
  408: 'RequestTimeout: the headers or the body did not arrive in time (HEADERS_TIMEOUT_MS, BODY_TIMEOUT_MS)',
  409: 'Conflict: illegal status transition, or Idempotency-Key reused with another body',
  413: 'PayloadTooLarge: the body, declared (Content-Length, answered at once) or sent, is over the limit (at most what NATS carries to the service)',
  422: 'Unprocessable: valid, but beyond what the service does for one request; `details.reason`: `upstream_budget_exceeded` (more than SIM_MAX_UPSTREAM_READS reads of chain state), `result_too_large` (a result NATS cannot carry; `details.size`, `details.limit`)',
  429: 'RateLimited: the key’s rate limit, or too many requests without a valid key from one address (see Retry-After)',
  502: 'UpstreamError: the chain RPC failed or timed out',
  503: 'ServiceUnavailable: no replica of the service answered, or its database is down (see Retry-After)',
  504: 'Timeout: the service did not answer in time (a simulation past SIM_TIMEOUT_MS: `details.reason` `simulation_timeout`); a create may still have been applied: retry it with the same Idempotency-Key',
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
};
/** Headers an error status always carries. */
const ERROR_HEADERS: Record<number, Json> = {
  401: { 'WWW-Authenticate': headerRef('WWW-Authenticate') },
  429: { 'Retry-After': headerRef('Retry-After'), ...RATE_LIMIT_HEADERS },
  503: { 'Retry-After': headerRef('Retry-After') },
};

const INFO = {
  title: 'Intents, payouts and simulation API',
  version: '1.0.0',
  description: [
    "Every `/v1` route but the searchers' order-flow ones (`GET /v1/mev/stream`, public; `POST /v1/mev`, signed with X-Flashbots-Signature) needs an API key, sent as `x-api-key: KEY`, `Authorization: Bearer KEY` or `Authorization: Token KEY` (the form Merkle's SDKs send).",
    `Scopes: ${SCOPES.join(', ')} (admin passes every check).`,
    'Every response carries `x-request-id` (yours if you send a sane one).',
    'Errors are `{error: true, name, message, details}`; wei amounts are decimal strings.',
    "A 401 carries `WWW-Authenticate`. Answers to a key carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (unix seconds), as GitHub's API does; a 429 and a 503 carry `Retry-After`. Requests without a known-good key are limited per client address before any key lookup.",
    'A 504, or a connection reset before the answer, on a create may have been applied: retry with the same `Idempotency-Key`.',
    'This document is generated from the gateway’s route table and the zod schemas of `packages/contracts` (`npm run openapi`).',
  ].join('\n\n'),
};

const COMPONENT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests the key’s bucket lets through at once', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests that may still pass at once', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) at which the bucket is full again', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  'WWW-Authenticate': {
    description:
      'The schemes a key is accepted with (RFC 7235): `Bearer realm="tradeinfra", Token realm="tradeinfra"`, with `error="invalid_token"` for an unknown or revoked key',
    schema: { type: 'string' },
  },
};

const SECURITY_SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
  bearer: { type: 'http', scheme: 'bearer' },
  token: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Token KEY`' },
  dashboard: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      '`Dashboard TOKEN`: the token of a dashboard URL (GET /v1/dashboard-url, GET /v1/source/{id}/dashboard-url). Accepted only by the routes that list it.',
  },
  dashboardQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description: 'A dashboard token as `?token=` (GET /v1/intents/events only: EventSource cannot send headers)',
  },
};
const KEY_SECURITY = [{ apiKey: [] }, { bearer: [] }, { token: [] }];

function security(route: RouteSpec): Json[] | undefined {
  if (route.scope === null) return [];
  if (!route.dashboard) return undefined; // the document's default: a key
  return [...KEY_SECURITY, { dashboard: [] }, ...(route.dashboard === 'query' ? [{ dashboardQuery: [] }] : [])];
}

function operation(route: RouteSpec, requests: SchemaSet, responses: SchemaSet): Json {
  // Routes answered to a key carry its rate-limit headers (the public /v1 ones: none, or their own).
  const keyed = route.path.startsWith('/v1/') && route.scope !== null;
  const token = {
    header: ' (or a dashboard token)',
    query: ' (or a dashboard token, also as `?token=`)',
    source: ' (or the dashboard token of the source `id` names)',
  };
  const scope = route.scope === null ? '' : `Scope ${route.scope}${route.dashboard ? token[route.dashboard] : ''}. `;
  const parameters = [
    ...Object.entries(route.params ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema: requests.use(schema) })),
    ...Object.entries(route.query?.shape ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: !(schema as z.ZodType).isOptional(),
      schema: requests.use(schema as z.ZodType),
    })),
    ...(route.idempotencyKey
      ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' } }]
      : []),
  ];
  const answer = (status: number, spec: ResponseSpec): Json => {
    const headers: Json = Object.fromEntries(
      Object.entries(spec.headers ?? {}).map(([name, h]) => [name, { description: h.description, schema: responses.use(h.schema) }]),
    );
    if (keyed && status < 300) Object.assign(headers, RATE_LIMIT_HEADERS);
    const content = spec.schema
      ? { [spec.contentType ?? 'application/json']: { schema: responses.use(spec.schema), ...(spec.example !== undefined ? { example: spec.example } : {}) } }
      : undefined;
    return { description: spec.description, ...(Object.keys(headers).length ? { headers } : {}), ...(content ? { content } : {}) };
  };
  const documented: Array<[number, Json]> = Object.entries(route.responses).map(([status, spec]) => [Number(status), answer(Number(status), spec)]);
  for (const status of route.errors) {
    const description = ERROR_DESCRIPTIONS[status];
    if (!description) throw new Error(`${route.method.toUpperCase()} ${route.path}: no description of error status ${status}`);
    const headers: Json = { ...ERROR_HEADERS[status], ...(keyed && (status === 403 || status === 404) ? RATE_LIMIT_HEADERS : {}) };
    const example = route.errorExample?.status === status ? { example: route.errorExample.body } : {};
    documented.push([
      status,
      { description, ...(Object.keys(headers).length ? { headers } : {}), content: { 'application/json': { schema: { $ref: ref('Error') }, ...example } } },
    ]);
  }
  documented.sort(([a], [b]) => a - b);
  const sec = security(route);
  return {
    summary: route.summary,
    ...(scope || route.description ? { description: `${scope}${route.description ?? ''}`.trim() } : {}),
    ...(route.scope !== null ? { 'x-required-scope': route.scope } : {}),
    ...(sec ? { security: sec } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !route.body.optional,
            content: {
              'application/json': { schema: requests.use(route.body.schema), ...(route.body.example !== undefined ? { example: route.body.example } : {}) },
            },
          },
        }
      : {}),
    responses: Object.fromEntries(documented.map(([status, json]) => [String(status), json])),
  };
}

/** The OpenAPI 3.1 document: the route table and the contracts' zod schemas, nothing written by hand as JSON Schema. */
export function buildOpenApiDocument(routes: readonly RouteSpec[] = ROUTES): Json {
  const requests = new SchemaSet('input', REQUEST_COMPONENTS);
  const responses = new SchemaSet('output', RESPONSE_COMPONENTS);
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} is in the route table twice`);
    item[route.method] = operation(route, requests, responses);
  }
  const notification = {
    summary: 'A status change of an intent, POSTed to its notificationWebhookUrl',
    description:
      'Headers: `x-notification-id` (the event id), `x-notification-timestamp` (unix seconds), `x-notification-signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`. ' +
      'Answer 2xx; anything else (a 3xx too) is retried with exponential backoff.',
    requestBody: { required: true, content: { 'application/json': { schema: responses.use(IntentEventSchema) } } },
    responses: { '200': { description: 'Received (any 2xx)' } },
  };
  const schemas = { ...requests.convert(), ...responses.convert() };
  return {
    openapi: '3.1.0',
    info: INFO,
    components: { headers: COMPONENT_HEADERS, securitySchemes: SECURITY_SCHEMES, schemas },
    security: KEY_SECURITY,
    webhooks: { intentNotification: { post: notification } },
    paths,
  };
}

/** The committed document: `openapi.json` at the repository root (the same path from `src/openapi` and `dist/openapi`). */
export const OPENAPI_FILE = fileURLToPath(new URL('../../../../openapi.json', import.meta.url));

/** The document as it is committed (`openapi.json` at the repository root) and served. */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
