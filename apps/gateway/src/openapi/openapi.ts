import {
  BATCH_CREATE_MAX_INTENTS,
  BULK_CANCEL_MAX_IDS,
  BulkCancelRequestSchema,
  createIntentRequestSchema,
  ErrorName,
  FAILURE_NOTIFICATION_TYPE,
  INTENT_EVENT_TYPES,
  INTENT_FAILURE_REASONS,
  INTENT_KINDS,
  LAUNCH_TYPES,
  INTENT_STATUSES,
  createWalletIntentRequestSchema,
  NOTIFICATION_TYPES,
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
const dashboardUrl = {
  type: 'object',
  required: ['url', 'expiresAt'],
  properties: { url: { type: 'string', format: 'uri', description: '<base>/dashboard?token=<JWT>' }, expiresAt: { type: 'string', format: 'date-time' } },
};
const signingSecret = {
  type: 'object',
  required: ['secret'],
  properties: { secret: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Hex HMAC-SHA256 key' } },
};

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
    statusData: nullable({ $ref: '#/components/schemas/StatusData' }),
    notificationWebhookUrl: nullable({
      type: 'string',
      format: 'uri',
      description:
        'Receives an HMAC-signed POST for every status change. Must resolve to public addresses only (checked at connect time); redirects are not followed.',
    }),
    webhookUrl: nullable({
      type: 'string',
      format: 'uri',
      description:
        'Signing webhook: receives the unsigned buy at launch and answers {signedTransactions: [raw]} (see the README). Public addresses only; a redirect is signer_refused.',
    }),
    kind: {
      type: 'string',
      enum: [...INTENT_KINDS],
      description: '`bot`: signed at launch by webhookUrl; `wallet`: pre-signed (POST /v1/wallet/intent), executed through the executor contract',
    },
    nonce: nullable({ ...wei, description: 'A wallet intent’s one-use executor nonce; null for a bot intent' }),
    launch: nullable({
      type: 'object',
      description: 'The launch the intent was acted on at (checked, sent, bought); null while it waits for one',
      required: ['type', 'txHash', 'blockNumber'],
      properties: {
        type: {
          type: 'string',
          enum: [...LAUNCH_TYPES],
          description:
            'public_transaction: seen pending, bought in its block; private_transaction: first seen in its block although the mempool is followed; block: seen in its block, the mempool not followed',
        },
        txHash: nullable({ type: 'string', pattern: '^0x[0-9a-f]{64}$', description: 'The launch transaction; null for a pair found already liquid' }),
        blockNumber: nullable({ type: 'integer', description: 'Its block; null while it is pending' }),
      },
    }),
  },
};

const statusData: Json = {
  type: 'object',
  description:
    'The measured values behind the latest status change (the notification’s `data`): `{max, actual}` for buy_tax_too_high / sell_tax_too_high (fractions), ' +
    '`{minIn, actual}` (wei), `{minLiquidity, actual}` (cents), `{minOut, quoted}` (token units), `{maxSlippageBps, actual}` (basis points, rounded up), ' +
    '`{balance, required}` for insufficient_funds, `{buyAmount, fee}` for nothing_to_buy, `{txHash}` once the buy is sent (and on completed, reverted, nonce_used, ' +
    'submission_rejected, an expiry after sending, error), `{txHash, targetBlock}` for not_included. Wei, token and cent amounts are decimal strings; null when there is nothing to say.',
  additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }] },
};
const ignoredReasons = INTENT_FAILURE_REASONS.filter((r) => FAILURE_NOTIFICATION_TYPE[r] === 'intent_ignored');
const failedReasons = INTENT_FAILURE_REASONS.filter((r) => FAILURE_NOTIFICATION_TYPE[r] === 'intent_failed');
const notification: Json = {
  type: 'object',
  description:
    'The body of every notification webhook POST and every server-sent event (`data:`), in Merkle’s shape (`intentId`, `chainId`, `type`, `reason`, `data`) plus ours. ' +
    `intent_created (reason created); intent_tx_pending (launch_detected: the buy was signed and sent, data {txHash}); intent_ignored (a check at launch: ${ignoredReasons.join(', ')}); ` +
    `intent_failed (the buy went wrong: ${failedReasons.join(', ')}); intent_completed (completed, data {txHash}); intent_expired (expired, or chain_unreachable / execution_unavailable); ` +
    'intent_cancelled (cancelled); intent_error (outcome_unknown).',
  required: ['id', 'intentId', 'chainId', 'type', 'reason', 'data', 'event', 'occurredAt', 'tenantId', 'intent'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'Event id, also `x-notification-id`: dedupe on it (delivery is at least once)' },
    intentId: { type: 'string', format: 'uuid' },
    chainId: { type: 'integer' },
    type: { type: 'string', enum: [...NOTIFICATION_TYPES] },
    reason: {
      type: 'string',
      description:
        'Machine-readable: the failure reason (the intent’s statusReason) or the type’s own (created, launch_detected, completed, expired, cancelled)',
    },
    data: { ...statusData, description: 'The intent’s statusData; `{}` when it is null' },
    event: { type: 'string', enum: [...INTENT_EVENT_TYPES], description: 'Our own event name (the `type` of earlier releases)' },
    occurredAt: timestamp,
    tenantId: { type: 'string' },
    intent: { $ref: '#/components/schemas/Intent' },
  },
};

const hexString = { type: 'string', pattern: '^0x[0-9a-fA-F]*$' };
const word32 = { type: 'string', pattern: '^0x[0-9a-f]{64}$', description: '32-byte word' };
const stateUpdate: Json = {
  type: 'object',
  description:
    "What the call changed, in the overrides' own shape (send it back as `overrides` to continue from the state after the call): only entries that differ from before the call (after its own overrides); empty sections left out. " +
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
    storage: {
      type: 'object',
      additionalProperties: { type: 'object', additionalProperties: word32, description: 'slot (32-byte word) → value (32-byte word)' },
    },
  },
};
const simulationResult: Json = {
  type: 'object',
  required: ['id', 'chainId', 'blockNumber', 'processTime', 'calls'],
  properties: {
    id: { type: 'string', format: 'uuid', description: "This simulation (also in the simulation service's log line for it)" },
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
            description: "On failure only (Merkle's SDKs read this shape)",
            required: ['type', 'message'],
            properties: {
              type: {
                type: 'string',
                enum: [...SIMULATION_ERROR_TYPES],
                description: '`panic`: a Solidity Panic(uint256); `precompile_error`: a failing call straight to a precompile',
              },
              message: {
                type: 'string',
                description: 'The Error(string) reason, Panic(code): meaning, the raw revert hex, "execution reverted", or the EVM error',
              },
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
    tx_hash: nullable({ type: 'string', description: 'Merkle’s name of txHash' }),
  },
};

const cashback: Json = {
  type: 'object',
  required: ['sourceId', 'entryCount', 'balances', 'estimatedUsd', 'unpricedAssets'],
  properties: {
    sourceId: { type: 'string' },
    entryCount: { type: 'integer' },
    latestEntryAt: nullable({ type: 'string', format: 'date-time' }),
    balances: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chainId', 'asset', 'amount', 'pending', 'claimable', 'paid'],
        properties: {
          chainId: { type: 'integer' },
          asset: { type: 'string' },
          amount: { ...exactNumber, description: 'Merkle’s name: the claimable balance' },
          pending: exactNumber,
          claimable: exactNumber,
          paid: exactNumber,
        },
      },
    },
    estimatedUsd: {
      type: 'number',
      description: 'The claimable balances in USD (rounded down to cents): stable assets at $1, native coins at the chain’s stable pair price',
    },
    unpricedAssets: { type: 'array', items: { type: 'string' }, description: 'Assets left out of estimatedUsd (no price source)' },
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
  413: 'PayloadTooLarge: the body, declared (Content-Length, answered at once) or sent, is over the limit (at most what NATS carries to the service)',
  422: 'Unprocessable: valid, but beyond what the service does for one request; `details.reason`: `upstream_budget_exceeded` (more than SIM_MAX_UPSTREAM_READS reads of chain state), `result_too_large` (a result NATS cannot carry; `details.size`, `details.limit`)',
  502: 'UpstreamError: the chain RPC failed or timed out',
  429: 'RateLimited: the key’s rate limit, or too many requests without a valid key from one address (see Retry-After)',
  503: 'ServiceUnavailable: no replica of the service answered, or its database is down (see Retry-After)',
  504: 'Timeout: the service did not answer in time (a simulation past SIM_TIMEOUT_MS: `details.reason` `simulation_timeout`); a create may still have been applied: retry it with the same Idempotency-Key',
};

const COMMON = [400, 401, 403, 408, 429, 503, 504];
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const json = (schema: Json) => ({ 'application/json': { schema } });
const record = { $ref: '#/components/schemas/Intent' };

const bulkCancelResult: Json = {
  type: 'object',
  required: ['id', 'status', 'cancelled', 'reason'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The id as asked (lowercase)' },
    status: nullable({ type: 'string', enum: [...INTENT_STATUSES], description: "The intent's status after the request; null when not found" }),
    cancelled: { type: 'boolean', description: 'true when this request cancelled it' },
    reason: {
      anyOf: [{ type: 'string', enum: ['not_found', 'not_pending', 'executing'] }, { type: 'null' }],
      description:
        "null when cancelled; `not_found`: unknown, or another tenant's (never told apart); `not_pending`: completed, expired, failed, in error, or already cancelled; `executing`: pending, but its buy was submitted (the chain decides)",
    },
  },
};

const EXAMPLE_INTENT = {
  chainId: 1,
  wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  tokenAddress: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  bribe: '1000000000000000',
  buyAmount: '100000000000000000',
  expiry: 1893456000,
  maxBuyTax: 0.1,
  firstOrFail: true,
};
const exampleRecord = (id: string, buyAmount: string) => ({
  id,
  status: 'pending',
  ...EXAMPLE_INTENT,
  buyAmount,
  maxSellTax: null,
  minIn: null,
  minOut: null,
  minLiquidity: null,
  feeBps: null,
  feeRecipient: null,
  maxSlippageBps: null,
  gasTip: null,
  createdAt: '2026-11-23T21:40:00.000Z',
  updatedAt: '2026-11-23T21:40:00.000Z',
  txHash: null,
  executedAt: null,
  statusReason: null,
  notificationWebhookUrl: null,
  webhookUrl: null,
});
const EXAMPLE_IDS = ['019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a01', '019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a02'];
const bulkCancelOperation = (summary: string, extra: string): Json & { responses: Record<string, Json> } => ({
  summary,
  description:
    `Scope intents:write. Body \`{ids}\`: 1 to ${BULK_CANCEL_MAX_IDS} intent ids, each at most once (a repeat, in any letter case, is a 400 naming it: \`ids.3\`). ` +
    'Every pending intent of your tenant among them is cancelled, in one transaction, each with its own `cancelled` event and notification, exactly as `POST /v1/intent/{id}/cancel` cancels one ' +
    '(a buy already submitted is `executing` and stays). Always 200 with one entry per id, in request order; nothing is ever a 404 or 409 here. ' +
    extra,
  requestBody: {
    required: true,
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/BulkCancel' }, example: { ids: [...EXAMPLE_IDS, '019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a03'] } },
    },
  },
  responses: {
    '200': {
      description: 'One entry per id, in request order',
      content: {
        'application/json': {
          schema: { type: 'array', items: { $ref: '#/components/schemas/BulkCancelResult' } },
          example: [
            { id: EXAMPLE_IDS[0], status: 'cancelled', cancelled: true, reason: null },
            { id: EXAMPLE_IDS[1], status: 'completed', cancelled: false, reason: 'not_pending' },
            { id: '019ab2f4-5c00-7a10-8a3e-3c1f0b6f2a03', status: null, cancelled: false, reason: 'not_found' },
          ],
        },
      },
    },
    ...errorResponses(...COMMON, 413),
  },
});

/** The OpenAPI 3.1 document, built from the same schemas the gateway validates with. */
export function buildOpenApiDocument(): Json {
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Intents, payouts and simulation API',
      version: '1.0.0',
      description: [
        "Every `/v1` route needs an API key, sent as `x-api-key: KEY`, `Authorization: Bearer KEY` or `Authorization: Token KEY` (the form Merkle's SDKs send).",
        `Scopes: ${SCOPES.join(', ')} (admin passes every check).`,
        'Every response carries `x-request-id` (yours if you send a sane one).',
        'Errors are `{error: true, name, message, details}`; wei amounts are decimal strings.',
        "A 401 carries `WWW-Authenticate`. Answers to a key carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (unix seconds), as GitHub's API does; a 429 and a 503 carry `Retry-After`. Requests without a known-good key are limited per client address before any key lookup.",
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
          description:
            'The schemes a key is accepted with (RFC 7235): `Bearer realm="tradeinfra", Token realm="tradeinfra"`, with `error="invalid_token"` for an unknown or revoked key',
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'bearer' },
        token: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Token KEY`' },
        dashboard: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            '`Dashboard TOKEN`: the token of a dashboard URL (GET /v1/dashboard-url, GET /v1/source/{id}/dashboard-url). Accepted only by the routes that say so; `?token=` on GET /v1/intents/events only.',
        },
      },
      schemas: {
        CreateIntent: schemaOf(createIntentRequestSchema()),
        CreateWalletIntent: schemaOf(createWalletIntentRequestSchema()),
        CreateIntents: {
          type: 'array',
          minItems: 1,
          maxItems: BATCH_CREATE_MAX_INTENTS,
          items: { $ref: '#/components/schemas/CreateIntent' },
          description: `1 to ${BATCH_CREATE_MAX_INTENTS} intents, each exactly a POST /v1/intent body`,
        },
        BulkCancel: schemaOf(BulkCancelRequestSchema),
        BulkCancelResult: bulkCancelResult,
        SearchIntents: schemaOf(SearchIntentsRequestSchema),
        Simulate: schemaOf(SimulateRequestSchema),
        SimulationResult: simulationResult,
        PayoutEntry: payoutEntry,
        Payout: payout,
        MevCaptureEvent: schemaOf(MevCaptureEventSchema),
        RequestPayout: schemaOf(RequestPayoutSchema),
        PayoutTransition: schemaOf(PayoutTransitionSchema),
        Intent: intentRecord,
        StatusData: statusData,
        Notification: notification,
        Error: errorBody,
      },
    },
    security: [{ apiKey: [] }, { bearer: [] }, { token: [] }],
    webhooks: {
      intentNotification: {
        post: {
          summary: 'A status change of an intent, POSTed to its notificationWebhookUrl',
          description:
            'Headers: `x-notification-id` (the event id), `x-notification-timestamp` (unix seconds), `x-notification-signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`. ' +
            'Answer 2xx; anything else (a 3xx too) is retried with exponential backoff.',
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/Notification' }) },
          responses: { '200': { description: 'Received (any 2xx)' } },
        },
      },
    },
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
      '/v1/wallet/intent': {
        post: {
          summary: 'Create a wallet intent (pre-signed, no webhook)',
          description:
            'Scope intents:write. The intent plus `nonce` and `signature`: the wallet’s EIP-712 signature of BuyIntent(address wallet,address token,uint256 amount,uint256 bribe,uint256 expiry,uint256 minIn,uint256 minOut,uint16 feeBps,address feeRecipient,bool firstOrFail,uint256 nonce) ' +
            'in the domain {name: "OPL", version: "1", chainId, verifyingContract: the chain’s executor}. Unset fields are signed as 0, the zero address or false. ' +
            'A signature that does not recover to `wallet`, or a chain without an executor, is 400. At launch the service’s relayer calls the executor, which takes buyAmount + bribe in WETH the wallet approved to it. Idempotency as POST /v1/intent.',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/CreateWalletIntent' }) },
          responses: { '201': { description: 'The intent (kind: wallet)', content: json(record) }, ...errorResponses(...COMMON, 409, 413) },
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
      '/v1/intents': {
        post: {
          summary: 'Create intents in a batch (all or nothing)',
          description:
            `Scope intents:write. A JSON array of 1 to ${BATCH_CREATE_MAX_INTENTS} intents, each validated exactly as \`POST /v1/intent\` validates one. ` +
            'All or nothing: one invalid item fails the request with 400, its problems named by index (`details[].path` such as `3.buyAmount`), and nothing is stored. ' +
            'Answers 201 with the records in request order; each intent gets its own `created` event and notification. ' +
            'With `Idempotency-Key`, the key covers the whole batch: the same key and body within 24 h returns the same records (header `idempotent-replayed: true`); the same key with another body, or a key used by a single create, is 409. ' +
            'The body may be up to INTENTS_BATCH_BODY_LIMIT_BYTES (512 KiB by default). The batch counts as one request for the rate limit.',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/CreateIntents' },
                example: [EXAMPLE_INTENT, { ...EXAMPLE_INTENT, buyAmount: '200000000000000000' }],
              },
            },
          },
          responses: {
            '201': {
              description: 'The intents, in request order',
              content: {
                'application/json': {
                  schema: { type: 'array', items: record },
                  example: [exampleRecord(EXAMPLE_IDS[0]!, '100000000000000000'), exampleRecord(EXAMPLE_IDS[1]!, '200000000000000000')],
                },
              },
            },
            ...errorResponses(...COMMON, 409, 413),
          },
        },
        delete: bulkCancelOperation('Cancel intents in bulk', 'Clients that cannot send a body with DELETE use `POST /v1/intents/cancel`.'),
      },
      '/v1/intents/cancel': {
        post: bulkCancelOperation('Cancel intents in bulk (the same as DELETE /v1/intents)', 'For clients that cannot send a body with DELETE.'),
      },
      '/v1/intents/search': {
        post: {
          summary: 'Search intents by wallet and status',
          description:
            'Scope intents:read. Newest first. When more results exist, the `x-next-cursor` response header holds the cursor of the next page; send it back as `cursor`. ' +
            'A dashboard token may leave `addresses` out: every wallet of its tenant.',
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
          description:
            "Scope intents:read (or a dashboard token, also as `?token=`). text/event-stream of your tenant's intent events from now on: `event:` the notification type (intent_created, …), `id:` event id, " +
            '`data:` the notification JSON, byte for byte the webhook body (schema Notification); a comment every 15 s.',
          responses: {
            '200': { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            ...errorResponses(401, 403, 429, 503),
          },
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
            '200': {
              description: '{secret}: the new secret',
              headers: { 'cache-control': { schema: { type: 'string', enum: ['no-store'] } } },
              content: json(signingSecret),
            },
            ...errorResponses(...COMMON),
          },
        },
      },
      '/v1/simulate': {
        post: {
          summary: 'Simulate a bundle of calls',
          description:
            'Scope simulate. Runs the calls in order on one shared state on top of the state after block `blockNumber` (or `block_number`; latest when omitted), ' +
            "each as a transaction with gas price 0 (the sender's nonce increments, no fee is charged), with the block environment eth_call uses at that block (BASEFEE reads 0), " +
            "under the EVM rules the chain ran at that block (see the README's fork schedule; HARDFORK_<chainId> fixes one). " +
            "The bundle's overrides apply before the first call, a call's own `overrides` just before it. A call's gas is `gas` or `gasLimit` (both and different: 400); " +
            "it defaults to the block gas limit capped by the fork's transaction gas cap (2^24 since Osaka, EIP-7825); more, or init code above 49,152 bytes (EIP-3860), is a 400 ValidationError. " +
            "A call whose `nonce` differs from its sender's fails the request with 400 `Nonce mismatch. Expected <n>, got <m> on call #<index>` (0-based). " +
            'At most 100 calls. Integers are exact at any size, also as bare JSON numbers. A failing chain RPC answers 502 within 10 s. ' +
            'A simulation still running after SIM_TIMEOUT_MS (10 s) is a 504 `simulation_timeout`; one needing more than SIM_MAX_UPSTREAM_READS (5,000) node reads, or whose result NATS cannot carry, a 422. ' +
            "Merkle's Go and TypeScript SDKs work as they are (Authorization: Token KEY).",
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/Simulate' }) },
          responses: {
            '200': { description: 'One result per call, in order', content: json({ $ref: '#/components/schemas/SimulationResult' }) },
            ...errorResponses(...COMMON, 413, 422, 502),
          },
        },
      },
      '/v1/payouts/tx/{hash}': {
        get: {
          summary: 'Payout entries one transaction generated',
          description: 'Scope payouts:read. An array, possibly empty; only entries of your sources (admin: all).',
          parameters: [{ name: 'hash', in: 'path', required: true, schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } }],
          responses: {
            '200': { description: 'Entries', content: json({ type: 'array', items: { $ref: '#/components/schemas/PayoutEntry' } }) },
            ...errorResponses(...COMMON),
          },
        },
      },
      '/v1/payouts': {
        get: {
          summary: 'List payout entries, newest first',
          description:
            'Scope payouts:read. Filters: status, chainId, sourceId, type, from/to (createdAt, ISO 8601; to exclusive), limit (1..500, default 100), cursor (from x-next-cursor).',
          parameters: ['status', 'chainId', 'sourceId', 'type', 'from', 'to', 'limit', 'cursor'].map((name) => ({
            name,
            in: 'query',
            required: false,
            schema: { type: 'string' },
          })),
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
          summary: "A source's cashback",
          description:
            "Scope payouts:read. Balances per (chainId, asset): amount (= claimable, Merkle’s field), pending (incl. claimed by payouts in progress), claimable, paid; entry count; latest entry time; estimatedUsd and unpricedAssets. Another tenant's source is 404.",
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'Cashback', content: json(cashback) }, ...errorResponses(...COMMON, 404) },
        },
      },
      '/v1/cashback/source/{id}/payout': {
        post: {
          summary: 'Request a payout',
          description:
            'Scope payouts:write. `{address, chainId, asset}` claims every unclaimed PENDING entry of the source on that chain and asset into a new payout (status PENDING), atomically: concurrent requests never claim one entry twice; the answer is the payout. ' +
            'Merkle’s `{address, email?}` does so for every claimable (chainId, asset) balance, each its own payout in kind, and answers `{id (the first payout’s), payouts: [...]}`. Nothing to claim or a total below the minimum is 409 (details.reason). ' +
            'An admin key paying out a source of another tenant (or an unregistered one) is recorded in the audit log (key, tenant, source, address, amount, time).',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/RequestPayout' }) },
          responses: {
            '201': {
              description: 'The payout; with `{address, email?}`, `{id, payouts}`',
              content: json({
                oneOf: [
                  { $ref: '#/components/schemas/Payout' },
                  {
                    type: 'object',
                    required: ['id', 'payouts'],
                    properties: { id: { type: 'string', format: 'uuid' }, payouts: { type: 'array', items: { $ref: '#/components/schemas/Payout' } } },
                  },
                ],
              }),
            },
            ...errorResponses(...COMMON, 404, 409),
          },
        },
      },
      '/v1/dashboard-url': {
        get: {
          summary: "A signed URL of the customer dashboard: the tenant's intents",
          description:
            "Scope intents:read. `{url, expiresAt}`: `<PUBLIC_BASE_URL>/dashboard?token=…`, valid DASHBOARD_TOKEN_TTL_SECONDS (15 min). The token (HS256) grants only this tenant's intent list, search and event stream. Cache-Control: no-store.",
          responses: { '200': { description: 'The URL', content: json(dashboardUrl) }, ...errorResponses(...COMMON) },
        },
      },
      '/v1/source/{id}/dashboard-url': {
        get: {
          summary: 'A signed URL of the customer dashboard of a source (Merkle’s)',
          description:
            "Scope payouts:read. `{url, expiresAt}` as GET /v1/dashboard-url; the token also grants this source's cashback, payouts and payout requests. Another tenant's source is 404.",
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'The URL', content: json(dashboardUrl) }, ...errorResponses(...COMMON, 404) },
        },
      },
      '/v1/cashback/source/{id}/payouts': {
        get: {
          summary: "A source's latest payouts",
          description: "Scope payouts:read (or the source's dashboard token). The latest 100, newest first. Another tenant's source is 404.",
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'Payouts', content: json({ type: 'array', items: { $ref: '#/components/schemas/Payout' } }) },
            ...errorResponses(...COMMON, 404),
          },
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
          description:
            'Scope admin. PENDING → TX_PENDING (txHash required) → PAID (its entries become PAID with payoutId set); TX_PENDING → TX_FAILED (its entries are released). PAID never changes; anything else is 409.',
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
          description:
            "For load balancers. A service behind the gateway being down does not make it unready (that service's routes answer 503); see /health/services.",
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
        if (status.startsWith('2') || status === '403' || status === '404')
          response.headers = { ...(response.headers as Json | undefined), ...RATE_LIMIT_HEADERS };
      }
    }
  }
  return document;
}
