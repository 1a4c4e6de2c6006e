import {
  BATCH_CREATE_MAX_INTENTS,
  BULK_CANCEL_MAX_IDS,
  BulkCancelRequestSchema,
  BulkCancelResultSchema,
  createIntentRequestSchema,
  createWalletIntentRequestSchema,
  IntentIdSchema,
  IntentRecordSchema,
  NoBodySchema,
  NotificationSecretSchema,
  SearchIntentsRequestSchema,
} from '@tradeinfra/contracts';
import { z } from 'zod';
import * as ex from './examples.js';
import { BODY_ERRORS, COMMON_ERRORS, type RouteSpec } from './route-table.js';

/** The request schemas the intent routes validate with, named in the document's components. */
export const CreateIntentSchema = createIntentRequestSchema();
export const CreateWalletIntentSchema = createWalletIntentRequestSchema();
/** `createIntentsBatchRequestSchema` as a client sees it: an array of CreateIntent (it checks the count first, then each item with CreateIntent). */
export const CreateIntentsSchema = z
  .array(CreateIntentSchema)
  .min(1)
  .max(BATCH_CREATE_MAX_INTENTS)
  .meta({ description: `1 to ${BATCH_CREATE_MAX_INTENTS} intents, each exactly a POST /v1/intent body` });

const intent = (description: string) => ({ description, schema: IntentRecordSchema });
const idParam = { id: IntentIdSchema };
const noStore = { 'cache-control': { description: 'Never cached', schema: z.literal('no-store') } };
const nextCursor = { 'x-next-cursor': { description: 'Present when there is a next page', schema: z.string() } };
const replayed = {
  'idempotent-replayed': { description: '`true` when an earlier request with the same Idempotency-Key made the answer', schema: z.literal('true') },
};

const bulkCancel = (method: 'delete' | 'post', path: string, summary: string, extra: string): RouteSpec => ({
  method,
  path,
  summary,
  description:
    `Body \`{ids}\`: 1 to ${BULK_CANCEL_MAX_IDS} intent ids, each at most once (a repeat, in any letter case, is a 400 naming it: \`ids.3\`). ` +
    'Every pending intent of your tenant among them is cancelled, in one transaction, each with its own `cancelled` event and notification, exactly as `POST /v1/intent/{id}/cancel` cancels one ' +
    '(a buy already submitted is `executing` and stays). Always 200 with one entry per id, in request order; nothing is ever a 404 or 409 here. ' +
    extra,
  scope: 'intents:write',
  body: { schema: BulkCancelRequestSchema, example: { ids: [...ex.IDS] } },
  responses: { 200: { description: 'One entry per id, in request order', schema: z.array(BulkCancelResultSchema), example: ex.BULK_CANCEL_RESULTS } },
  errors: BODY_ERRORS,
  errorExample: { status: 400, body: ex.validationError('ids.1', 'repeats ids.0: name each intent once') },
});

export const INTENT_ROUTES: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/intent',
    summary: 'Create an intent',
    description:
      'Expiry must be in the future and at most 30 days ahead; chainId one the service runs (1, 56, 137 by default). ' +
      'The signing `webhookUrl` speaks Merkle’s signature webhook ({intentId, launch, tx, rawTx, hash} → {signature}) unless `webhookProtocol` is `tradeinfra` (ours: {kind: "sign", transactions} → {signedTransactions}; implied by webhookBatch). ' +
      'With `Idempotency-Key`, the same key and body within 24 h returns the same intent (header `idempotent-replayed: true`); the same key with another body is 409.',
    scope: 'intents:write',
    idempotencyKey: true,
    body: { schema: CreateIntentSchema, example: ex.CREATE_INTENT },
    responses: { 201: { ...intent('The intent'), headers: replayed, example: ex.intentRecord() } },
    errors: [...BODY_ERRORS, 409],
    errorExample: {
      status: 400,
      body: ex.validationError('buyAmount', 'must be wei as a decimal integer string (digits only, no sign, no leading zeros)'),
    },
  },
  {
    method: 'post',
    path: '/v1/wallet/intent',
    summary: 'Create a wallet intent (pre-signed, no webhook)',
    description:
      'The intent plus `signature`, the wallet’s EIP-712 signature in the domain {name: "OPL", version: "1", chainId, verifyingContract: the chain’s executor}. ' +
      'Without `nonce` (Merkle’s body), the signature is of Merkle’s BuyIntent(address token,uint256 amount,uint256 bribe,uint256 expiry,uint256 minIn): feeBps, feeRecipient, minOut and firstOrFail, which it does not bind, must then be absent; the executor spends each signed struct once per wallet. ' +
      'With `nonce`, it is of our BuyIntent(address wallet,address token,uint256 amount,uint256 bribe,uint256 expiry,uint256 minIn,uint256 minOut,uint16 feeBps,address feeRecipient,bool firstOrFail,uint256 nonce), unset fields signed as 0, the zero address or false. ' +
      'A signature that does not recover to `wallet`, or a chain without an executor, is 400. At launch the service’s relayer calls the executor, which takes buyAmount + bribe in WETH the wallet approved to it. Idempotency as POST /v1/intent.',
    scope: 'intents:write',
    idempotencyKey: true,
    body: { schema: CreateWalletIntentSchema, example: ex.CREATE_WALLET_INTENT },
    responses: { 201: { ...intent('The intent (kind: wallet)'), headers: replayed, example: ex.WALLET_INTENT } },
    errors: [...BODY_ERRORS, 409],
    errorExample: {
      status: 400,
      body: ex.validationError(
        'signature',
        "is not the wallet's EIP-712 signature of Merkle's 5-field BuyIntent (no nonce given) (domain OPL/1, this chain, its executor)",
      ),
    },
  },
  {
    method: 'get',
    path: '/v1/intent/{id}',
    summary: 'Fetch an intent',
    description: 'Another tenant’s id answers 404.',
    scope: 'intents:read',
    dashboard: 'header',
    params: idParam,
    responses: { 200: { ...intent('The intent'), example: ex.COMPLETED_INTENT } },
    errors: [...COMMON_ERRORS, 404],
    errorExample: { status: 404, body: ex.NOT_FOUND('Intent', ex.IDS[2]) },
  },
  {
    method: 'post',
    path: '/v1/intent/{id}/cancel',
    summary: 'Cancel a pending intent',
    description: 'pending → cancelled; any other status → 409. No body (or `{}`).',
    scope: 'intents:write',
    params: idParam,
    body: { schema: NoBodySchema, optional: true, example: {} },
    responses: { 200: { ...intent('The cancelled intent'), example: ex.CANCELLED_INTENT } },
    errors: [...BODY_ERRORS, 404, 409],
    errorExample: { status: 409, body: ex.NOT_PENDING },
  },
  {
    method: 'post',
    path: '/v1/intents',
    summary: 'Create intents in a batch (all or nothing)',
    description:
      `A JSON array of 1 to ${BATCH_CREATE_MAX_INTENTS} intents, each validated exactly as \`POST /v1/intent\` validates one. ` +
      'All or nothing: one invalid item fails the request with 400, its problems named by index (`details[].path` such as `3.buyAmount`), and nothing is stored. ' +
      'Answers 201 with the records in request order; each intent gets its own `created` event and notification. ' +
      'With `Idempotency-Key`, the key covers the whole batch: the same key and body within 24 h returns the same records (header `idempotent-replayed: true`); the same key with another body, or a key used by a single create, is 409. ' +
      'The body may be up to INTENTS_BATCH_BODY_LIMIT_BYTES (512 KiB by default). The batch counts as one request for the rate limit.',
    scope: 'intents:write',
    idempotencyKey: true,
    body: { schema: CreateIntentsSchema, example: [ex.CREATE_INTENT, { ...ex.CREATE_INTENT, buyAmount: '200000000000000000' }] },
    responses: {
      201: {
        description: 'The intents, in request order',
        schema: z.array(IntentRecordSchema),
        headers: replayed,
        example: [ex.intentRecord(), ex.intentRecord({ id: ex.IDS[1], buyAmount: '200000000000000000' })],
      },
    },
    errors: [...BODY_ERRORS, 409],
    errorExample: {
      status: 400,
      body: ex.validationError('1.buyAmount', 'must be wei as a decimal integer string (digits only, no sign, no leading zeros)'),
    },
  },
  bulkCancel('delete', '/v1/intents', 'Cancel intents in bulk', 'Clients that cannot send a body with DELETE use `POST /v1/intents/cancel`.'),
  bulkCancel('post', '/v1/intents/cancel', 'Cancel intents in bulk (the same as DELETE /v1/intents)', 'For clients that cannot send a body with DELETE.'),
  {
    method: 'post',
    path: '/v1/intents/search',
    summary: 'Search intents by wallet and status',
    description:
      'Newest first. When more results exist, the `x-next-cursor` response header holds the cursor of the next page; send it back as `cursor`. ' +
      'A dashboard token may leave `addresses` out: every wallet of its tenant.',
    scope: 'intents:read',
    dashboard: 'header',
    body: { schema: SearchIntentsRequestSchema, example: { addresses: [ex.WALLET], status: ['pending', 'completed'], limit: 100 } },
    responses: {
      200: {
        description: 'A page of intents',
        schema: z.array(IntentRecordSchema),
        headers: nextCursor,
        example: [ex.COMPLETED_INTENT, ex.intentRecord({ id: ex.IDS[1] })],
      },
    },
    errors: BODY_ERRORS,
    errorExample: { status: 400, body: ex.validationError('status.0', 'must be one of pending, completed, expired, failed, cancelled, error') },
  },
  {
    method: 'get',
    path: '/v1/intents/events',
    summary: 'Live intent status changes (server-sent events)',
    description:
      "text/event-stream of your tenant's intent events from now on: `event:` the notification type (intent_created, …), `id:` event id, " +
      '`data:` the notification JSON, byte for byte the webhook body (schema Notification); a comment every 15 s. At most 5 streams per key at once (more: 429).',
    scope: 'intents:read',
    dashboard: 'query',
    responses: {
      200: { description: 'An event stream; each `data:` is a Notification', contentType: 'text/event-stream', schema: z.string(), example: ex.EVENT_STREAM },
    },
    errors: [401, 403, 429, 503],
    errorExample: { status: 429, body: ex.RATE_LIMITED },
  },
  {
    method: 'get',
    path: '/v1/intents/notifications/secret',
    summary: 'The key that verifies your webhook signatures',
    description:
      'Whoever holds it can forge our signatures, hence intents:write. Webhook notifications carry ' +
      '`x-notification-signature: v1=<hex HMAC-SHA256(secret, "<x-notification-timestamp>.<body>")>`; signing requests carry `x-signing-signature` the same way.',
    scope: 'intents:write',
    responses: { 200: { description: '{secret}', schema: NotificationSecretSchema, headers: noStore, example: ex.SECRET } },
    errors: COMMON_ERRORS,
    errorExample: { status: 403, body: ex.FORBIDDEN('intents:write') },
  },
  {
    method: 'post',
    path: '/v1/intents/notifications/secret/rotate',
    summary: 'Replace your webhook signing secret',
    description:
      'No body (or `{}`). Answers the new secret; from then on every notification and signing request of your tenant, ' +
      'on every replica, is signed with it, and the old one signs nothing.',
    scope: 'intents:write',
    body: { schema: NoBodySchema, optional: true, example: {} },
    responses: { 200: { description: '{secret}: the new secret', schema: NotificationSecretSchema, headers: noStore, example: ex.SECRET } },
    errors: BODY_ERRORS,
    errorExample: { status: 403, body: ex.FORBIDDEN('intents:write') },
  },
];
