import {
  createIntentRequestSchema,
  ErrorName,
  INTENT_FAILURE_REASONS,
  INTENT_STATUSES,
  SearchIntentsRequestSchema,
  SimulateRequestSchema,
  SIMULATION_ERROR_TYPES,
  MevCaptureEventSchema,
  PayoutTransitionSchema,
  RequestPayoutSchema,
} from '@tradeinfra/contracts';
import { z } from 'zod';
import { SCOPES } from '../auth/scopes.js';

type Json = Record<string, unknown>;

function schemaOf(schema: z.ZodType): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
}

const nullable = (schema: Json): Json => ({ anyOf: [schema, { type: 'null' }] });
const wei = { type: 'string', pattern: '^(0|[1-9][0-9]*)$', description: 'Decimal integer string, 0..2^256-1' };
const address = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$', description: 'EIP-55 checksummed address' };
const timestamp = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC' };
const signingSecret = { type: 'object', required: ['secret'], properties: { secret: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Hex HMAC-SHA256 key' } } };

const intentRecord: Json = {
  type: 'object',
  description: 'Every creation field (unset optional fields are null) plus the intent’s own fields.',
  required: ['id', 'status', 'chainId', 'wallet', 'tokenAddress', 'bribe', 'buyAmount', 'expiry', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'UUIDv7, time-ordered' },
    status: { type: 'string', enum: [...INTENT_STATUSES] },
    chainId: { type: 'integer' },
    wallet: address,
    tokenAddress: address,
    bribe: wei,
    buyAmount: wei,
    expiry: { type: 'integer', description: 'Unix seconds' },
    maxBuyTax: nullable({ type: 'number', minimum: 0, maximum: 1 }),
    maxSellTax: nullable({ type: 'number', minimum: 0, maximum: 1 }),
    minIn: nullable(wei),
    minOut: nullable(wei),
    minLiquidity: nullable(wei),
    feeBps: nullable({ type: 'integer', minimum: 0, maximum: 10000 }),
    feeRecipient: nullable(address),
    firstOrFail: nullable({ type: 'boolean' }),
    maxSlippageBps: nullable({ type: 'integer', minimum: 0, maximum: 10000 }),
    gasTip: nullable(wei),
    createdAt: timestamp,
    updatedAt: timestamp,
    txHash: nullable({ type: 'string' }),
    executedAt: nullable(timestamp),
    statusReason: nullable({
      type: 'string',
      description: `Why the intent ended as it did (failed: ${INTENT_FAILURE_REASONS.join(', ')}), or why a pending one has not executed yet (chain_unreachable, execution_unavailable)`,
    }),
    notificationWebhookUrl: nullable({
      type: 'string',
      format: 'uri',
      description: 'Receives an HMAC-signed POST for every status change. Must resolve to public addresses only (checked at connect time); redirects are not followed.',
    }),
    webhookUrl: nullable({
      type: 'string',
      format: 'uri',
      description:
        'Signing webhook: receives the unsigned buy at launch and answers {signedTransactions: [raw]} (see the README). Public addresses only; a redirect is signer_refused.',
    }),
  },
};

const hexString = { type: 'string', pattern: '^0x[0-9a-fA-F]*$' };
const word32 = { type: 'string', pattern: '^0x[0-9a-f]{64}$', description: '32-byte word' };
const stateUpdate: Json = {
  type: 'object',
  description:
    'What the call changed, in the overrides\' own shape (send it back as `overrides` to continue from the state after the call): only entries that differ from before the call (after its own overrides); empty sections left out. ' +
    'An account the call deleted (created and self-destructed in one transaction, EIP-6780) reads nonce 0, balance 0x0, code 0x, and every slot of it the simulation knows of 0.',
  properties: {
    accounts: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { nonce: { type: 'integer' }, balance: { ...hexString, description: 'Wei, 0x hex (a string, as overrides take it)' } },
      },
    },
    contractCodes: { type: 'object', additionalProperties: hexString },
    storage: { type: 'object', additionalProperties: { type: 'object', additionalProperties: word32, description: 'slot (32-byte word) → value (32-byte word)' } },
  },
};
const simulationResult: Json = {
  type: 'object',
  required: ['id', 'chainId', 'blockNumber', 'processTime', 'calls'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'This simulation (also in the simulation service\'s log line for it)' },
    chainId: { type: 'integer' },
    blockNumber: { ...hexString, description: 'The block whose state the calls ran on' },
    processTime: { type: 'integer', description: 'Milliseconds' },
    calls: {
      type: 'array',
      items: {
        type: 'object',
        required: ['logs', 'gasUsed', 'result', 'status', 'internalTransfers', 'updated'],
        properties: {
          logs: {
            type: 'array',
            items: { type: 'object', properties: { address: address, topics: { type: 'array', items: hexString }, data: hexString } },
          },
          gasUsed: { ...hexString, description: 'As in a receipt: intrinsic gas included, refunds applied' },
          result: { type: 'string', description: 'Return (or revert) data, hex; "" when empty' },
          status: { type: 'integer', enum: [0, 1] },
          internalTransfers: {
            type: 'array',
            description: 'Native value moved by nested CALL/CALLCODE, CREATE/CREATE2 endowments and SELFDESTRUCT, in frames that did not revert',
            items: { type: 'object', properties: { from: address, to: address, amount: hexString } },
          },
          error: {
            type: 'object',
            description: 'On failure only (Merkle\'s SDKs read this shape)',
            required: ['type', 'message'],
            properties: {
              type: { type: 'string', enum: [...SIMULATION_ERROR_TYPES], description: '`panic`: a Solidity Panic(uint256); `precompile_error`: a failing call straight to a precompile' },
              message: { type: 'string', description: 'The Error(string) reason, Panic(code): meaning, the raw revert hex, "execution reverted", or the EVM error' },
            },
          },
          addressCreated: { ...address, description: 'A creation (no `to`) that succeeded: the new contract' },
          updated: stateUpdate,
        },
      },
    },
  },
};

const exactNumber = { type: 'number', description: 'Exact decimal written as a JSON number (parse it as a decimal, not a float, to keep every digit)' };
const payoutEntry: Json = {
  type: 'object',
  required: ['id', 'asset', 'amount', 'sourceId', 'chainId', 'type', 'reference', 'payoutId', 'createdAt', 'status'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    asset: { type: 'string' },
    amount: exactNumber,
    sourceId: { type: 'string', description: '"" when the entry has no source' },
    chainId: { type: 'integer' },
    type: { type: 'string', enum: ['mev'] },
    reference: { type: 'string', description: 'Hash of the transaction that generated the payout' },
    generatedBySourceId: { type: 'string', description: 'Present when generated by a source' },
    payoutId: { type: 'string', description: 'Set once paid; "" otherwise' },
    createdAt: timestamp,
    status: { type: 'string', enum: ['PENDING', 'PAID'] },
  },
};
const payout: Json = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    sourceId: { type: 'string' },
    address: address,
    chainId: { type: 'integer' },
    asset: { type: 'string' },
    amount: exactNumber,
    status: { type: 'string', enum: ['PENDING', 'TX_PENDING', 'PAID', 'TX_FAILED'] },
    txHash: nullable({ type: 'string' }),
  },
};

const errorBody: Json = {
  type: 'object',
  required: ['error', 'name', 'message', 'details'],
  properties: {
    error: { const: true },
    name: { type: 'string', enum: Object.values(ErrorName) },
    message: { type: 'string' },
    details: {
      description: 'ValidationError: a list of {path, message}, one per field; otherwise null or an object',
    },
  },
};

const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
const RETRY_AFTER: Json = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };

/** Headers an error status always carries. */
const ERROR_HEADERS: Record<number, Json> = {
  401: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
  429: { ...RETRY_AFTER, ...RATE_LIMIT_HEADERS },
  503: RETRY_AFTER,
};

const errorResponses = (...statuses: number[]): Json =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: ERROR_DESCRIPTIONS[status],
        ...(ERROR_HEADERS[status] ? { headers: ERROR_HEADERS[status] } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'ValidationError: malformed JSON, wrong types, out-of-range values, unknown fields, text with NUL or that is not UTF-8 (details name the field: `buyAmount`, `query.limit`, `path`)',
  401: 'Unauthorized: missing, unknown or revoked API key (with WWW-Authenticate)',
  403: 'Forbidden: the key lacks the scope',
  404: 'NotFound: unknown id (or another tenant’s)',
  408: 'RequestTimeout: the headers or the body did not arrive in time (HEADERS_TIMEOUT_MS, BODY_TIMEOUT_MS)',
  409: 'Conflict: illegal status transition, or Idempotency-Key reused with another body',
  413: 'PayloadTooLarge: the body, declared (Content-Length, answered at once) or sent, is over the limit',
  502: 'UpstreamError: the chain RPC failed or timed out',
  429: 'RateLimited: the key’s rate limit, or too many requests without a valid key from one address (see Retry-After)',
  503: 'ServiceUnavailable: no replica of the service answered, or its database is down (see Retry-After)',
  504: 'Timeout: the service did not answer in time; a create may still have been applied: retry it with the same Idempotency-Key',
};

const COMMON = [400, 401, 403, 408, 429, 503, 504];
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const json = (schema: Json) => ({ 'application/json': { schema } });
const record = { $ref: '#/components/schemas/Intent' };

/** The OpenAPI 3.1 document, built from the same schemas the gateway validates with. */
export function buildOpenApiDocument(): Json {
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Intents, payouts and simulation API',
      version: '1.0.0',
      description: [
        'Every `/v1` route needs an API key, sent as `x-api-key: KEY`, `Authorization: Bearer KEY` or `Authorization: Token KEY` (the form Merkle\'s SDKs send).',
        `Scopes: ${SCOPES.join(', ')} (admin passes every check).`,
        'Every response carries `x-request-id` (yours if you send a sane one).',
        'Errors are `{error: true, name, message, details}`; wei amounts are decimal strings.',
        'A 401 carries `WWW-Authenticate`. Answers to a key carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (unix seconds), as GitHub\'s API does; a 429 and a 503 carry `Retry-After`. Requests without a known-good key are limited per client address before any key lookup.',
        'A 504, or a connection reset before the answer, on a create may have been applied: retry with the same `Idempotency-Key`.',
      ].join('\n\n'),
    },
    components: {
      headers: {
        'X-RateLimit-Limit': { description: 'Requests the key’s bucket lets through at once', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests that may still pass at once', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'Unix time (seconds) at which the bucket is full again', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
        'WWW-Authenticate': {
          description: 'The schemes a key is accepted with (RFC 7235): `Bearer realm="tradeinfra", Token realm="tradeinfra"`, with `error="invalid_token"` for an unknown or revoked key',
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'bearer' },
        token: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Token KEY`' },
      },
      schemas: {
        CreateIntent: schemaOf(createIntentRequestSchema()),
        SearchIntents: schemaOf(SearchIntentsRequestSchema),
        Simulate: schemaOf(SimulateRequestSchema),
        SimulationResult: simulationResult,
        PayoutEntry: payoutEntry,
        Payout: payout,
        MevCaptureEvent: schemaOf(MevCaptureEventSchema),
        RequestPayout: schemaOf(RequestPayoutSchema),
        PayoutTransition: schemaOf(PayoutTransitionSchema),
        Intent: intentRecord,
        Error: errorBody,
      },
    },
    security: [{ apiKey: [] }, { bearer: [] }, { token: [] }],
    paths: {
      '/v1/intent': {
        post: {
          summary: 'Create an intent',
          description:
            'Scope intents:write. Expiry must be in the future and at most 30 days ahead; chainId one the service runs (1, 56, 137 by default). ' +
            'With `Idempotency-Key`, the same key and body within 24 h returns the same intent (header `idempotent-replayed: true`); the same key with another body is 409.',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/CreateIntent' }) },
          responses: { '201': { description: 'The intent', content: json(record) }, ...errorResponses(...COMMON, 409, 413) },
        },
      },
      '/v1/intent/{id}': {
        get: {
          summary: 'Fetch an intent',
          description: 'Scope intents:read. Another tenant’s id answers 404.',
          parameters: [idParam],
          responses: { '200': { description: 'The intent', content: json(record) }, ...errorResponses(...COMMON, 404) },
        },
      },
      '/v1/intent/{id}/cancel': {
        post: {
          summary: 'Cancel a pending intent',
          description: 'Scope intents:write. pending → cancelled; any other status → 409.',
          parameters: [idParam],
          responses: { '200': { description: 'The cancelled intent', content: json(record) }, ...errorResponses(...COMMON, 404, 409) },
        },
      },
      '/v1/intents/search': {
        post: {
          summary: 'Search intents by wallet and status',
          description:
            'Scope intents:read. Newest first. When more results exist, the `x-next-cursor` response header holds the cursor of the next page; send it back as `cursor`.',
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/SearchIntents' }) },
          responses: {
            '200': {
              description: 'A page of intents',
              headers: { 'x-next-cursor': { schema: { type: 'string' }, description: 'Present when there is a next page' } },
              content: json({ type: 'array', items: record }),
            },
            ...errorResponses(...COMMON, 413),
          },
        },
      },
      '/v1/intents/events': {
        get: {
          summary: 'Live intent status changes (server-sent events)',
          description: 'Scope intents:read. text/event-stream of your tenant\'s intent events from now on: `event:` type, `id:` event id, `data:` the event JSON; a comment every 15 s.',
          responses: { '200': { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errorResponses(401, 403, 429, 503) },
        },
      },
      '/v1/intents/notifications/secret': {
        get: {
          summary: 'The key that verifies your webhook signatures',
          description:
            'Scope intents:write (whoever holds it can forge our signatures). Sent with `Cache-Control: no-store`. Webhook notifications carry ' +
            '`x-notification-signature: v1=<hex HMAC-SHA256(secret, "<x-notification-timestamp>.<body>")>`; signing requests carry `x-signing-signature` the same way.',
          responses: {
            '200': { description: '{secret}', headers: { 'cache-control': { schema: { type: 'string', enum: ['no-store'] } } }, content: json(signingSecret) },
            ...errorResponses(...COMMON),
          },
        },
      },
      '/v1/intents/notifications/secret/rotate': {
        post: {
          summary: 'Replace your webhook signing secret',
          description:
            'Scope intents:write. No body. Answers the new secret (`Cache-Control: no-store`); from then on every notification and signing request of your tenant, ' +
            'on every replica, is signed with it, and the old one signs nothing.',
          responses: {
            '200': { description: '{secret}: the new secret', headers: { 'cache-control': { schema: { type: 'string', enum: ['no-store'] } } }, content: json(signingSecret) },
            ...errorResponses(...COMMON),
          },
        },
      },
      '/v1/simulate': {
        post: {
          summary: 'Simulate a bundle of calls',
          description:
            'Scope simulate. Runs the calls in order on one shared state on top of the state after block `blockNumber` (or `block_number`; latest when omitted), ' +
            'each as a transaction with gas price 0 (the sender\'s nonce increments, no fee is charged), with the block environment eth_call uses at that block (BASEFEE reads 0), ' +
            'under the EVM rules the chain ran at that block (see the README\'s fork schedule; HARDFORK_<chainId> fixes one). ' +
            'The bundle\'s overrides apply before the first call, a call\'s own `overrides` just before it. A call\'s gas is `gas` or `gasLimit` (both and different: 400); ' +
            'it defaults to the block gas limit capped by the fork\'s transaction gas cap (2^24 since Osaka, EIP-7825); more, or init code above 49,152 bytes (EIP-3860), is a 400 ValidationError. ' +
            'A call whose `nonce` differs from its sender\'s fails the request with 400 `Nonce mismatch. Expected <n>, got <m> on call #<index>` (0-based). ' +
            'At most 100 calls. Integers are exact at any size, also as bare JSON numbers. A failing chain RPC answers 502 within 10 s. ' +
            'Merkle\'s Go and TypeScript SDKs work as they are (Authorization: Token KEY).',
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/Simulate' }) },
          responses: {
            '200': { description: 'One result per call, in order', content: json({ $ref: '#/components/schemas/SimulationResult' }) },
            ...errorResponses(...COMMON, 413, 502),
          },
        },
      },
      '/v1/payouts/tx/{hash}': {
        get: {
          summary: 'Payout entries one transaction generated',
          description: 'Scope payouts:read. An array, possibly empty; only entries of your sources (admin: all).',
          parameters: [{ name: 'hash', in: 'path', required: true, schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } }],
          responses: { '200': { description: 'Entries', content: json({ type: 'array', items: { $ref: '#/components/schemas/PayoutEntry' } }) }, ...errorResponses(...COMMON) },
        },
      },
      '/v1/payouts': {
        get: {
          summary: 'List payout entries, newest first',
          description: 'Scope payouts:read. Filters: status, chainId, sourceId, type, from/to (createdAt, ISO 8601; to exclusive), limit (1..500, default 100), cursor (from x-next-cursor).',
          parameters: ['status', 'chainId', 'sourceId', 'type', 'from', 'to', 'limit', 'cursor'].map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
          responses: {
            '200': {
              description: 'A page of entries',
              headers: { 'x-next-cursor': { schema: { type: 'string' }, description: 'Present when there is a next page' } },
              content: json({ type: 'array', items: { $ref: '#/components/schemas/PayoutEntry' } }),
            },
            ...errorResponses(...COMMON),
          },
        },
      },
      '/v1/payouts/entries': {
        post: {
          summary: 'Record an entry by hand (operators)',
          description: 'Scope admin. The body is a MEV-capture event; its id makes the record idempotent (201 created, 200 already recorded).',
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/MevCaptureEvent' }) },
          responses: { '201': { description: 'The entry', content: json({ $ref: '#/components/schemas/PayoutEntry' }) }, ...errorResponses(...COMMON) },
        },
      },
      '/v1/cashback/source/{id}': {
        get: {
          summary: 'A source\'s cashback',
          description: 'Scope payouts:read. Balances per (chainId, asset): pending (incl. claimed by payouts in progress), claimable, paid; entry count; latest entry time. Another tenant\'s source is 404.',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'Cashback' }, ...errorResponses(...COMMON, 404) },
        },
      },
      '/v1/cashback/source/{id}/payout': {
        post: {
          summary: 'Request a payout',
          description:
            'Scope payouts:write. Claims every unclaimed PENDING entry of the source on that chain and asset into a new payout (status PENDING), atomically: concurrent requests never claim one entry twice. Nothing to claim or a total below the minimum is 409 (details.reason). ' +
            'An admin key paying out a source of another tenant (or an unregistered one) is recorded in the audit log (key, tenant, source, address, amount, time).',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/RequestPayout' }) },
          responses: { '201': { description: 'The payout', content: json({ $ref: '#/components/schemas/Payout' }) }, ...errorResponses(...COMMON, 404, 409) },
        },
      },
      '/v1/cashback/payout/{id}': {
        get: {
          summary: 'A payout',
          description: 'Scope payouts:read.',
          parameters: [idParam],
          responses: { '200': { description: 'The payout', content: json({ $ref: '#/components/schemas/Payout' }) }, ...errorResponses(...COMMON, 404) },
        },
      },
      '/v1/cashback/payout/{id}/status': {
        post: {
          summary: 'Settle a payout (operators)',
          description: 'Scope admin. PENDING → TX_PENDING (txHash required) → PAID (its entries become PAID with payoutId set); TX_PENDING → TX_FAILED (its entries are released). PAID never changes; anything else is 409.',
          parameters: [idParam],
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/PayoutTransition' }) },
          responses: { '200': { description: 'The payout', content: json({ $ref: '#/components/schemas/Payout' }) }, ...errorResponses(...COMMON, 404, 409) },
        },
      },
      '/v1/sources': {
        post: {
          summary: 'Register a source to a tenant (operators)',
          description: 'Scope admin. Body {id, tenant: tenant name}. Entries recorded before registration become visible to the tenant.',
          responses: { '201': { description: 'Registered' }, ...errorResponses(...COMMON, 404, 409) },
        },
      },
      '/health': { get: { summary: 'Liveness', security: [], responses: { '200': { description: 'The process is up' } } } },
      '/ready': {
        get: {
          summary: 'Readiness of this gateway: its Postgres and NATS answer',
          description: 'For load balancers. A service behind the gateway being down does not make it unready (that service\'s routes answer 503); see /health/services.',
          security: [],
          responses: {
            '200': { description: 'Ready: `{status: "ok", checks: {database: "up", nats: "up"}}`' },
            '503': { description: 'Postgres or NATS is down (`checks` says which)', headers: RETRY_AFTER },
          },
        },
      },
      '/health/services': {
        get: {
          summary: 'Each service as this gateway sees it, with its latency',
          security: [],
          responses: {
            '200': {
              description: 'Always 200; `status` is `degraded` when a service does not answer within 1 s',
              content: json({
                type: 'object',
                properties: {
                  status: { type: 'string', enum: ['ok', 'degraded'] },
                  services: {
                    type: 'object',
                    additionalProperties: {
                      type: 'object',
                      properties: { state: { type: 'string', enum: ['up', 'down'] }, latencyMs: nullable({ type: 'number' }) },
                    },
                  },
                },
              }),
            },
          },
        },
      },
      '/metrics': { get: { summary: 'Prometheus metrics', security: [], responses: { '200': { description: 'text/plain' } } } },
    },
  };
  // Every answer to a key (the /v1 routes) carries its rate-limit state.
  for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, Json> }>>)) {
    if (!path.startsWith('/v1/')) continue;
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status.startsWith('2') || status === '403' || status === '404') response.headers = { ...(response.headers as Json | undefined), ...RATE_LIMIT_HEADERS };
      }
    }
  }
  return document;
}
