import { z } from 'zod';
import { INTENT_FAILURE_REASONS } from './execution.js';
import { ExitRecordSchema } from './exits.js';
import { BULK_CANCEL_REASONS, INTENT_EVENT_TYPES, INTENT_KINDS, INTENT_STATUSES, LAUNCH_TYPES, WEBHOOK_PROTOCOLS } from './intent-vocabulary.js';
import { IntentStatusDataSchema, MERKLE_INTENT_ERRORS, NOTIFICATION_TYPES } from './notifications.js';

/*
 * What the intent endpoints answer, as zod schemas: the types are inferred from them and the
 * OpenAPI document is generated from them. They describe the wire exactly (no transforms, no
 * unknown keys), so a test can parse every real answer with them.
 */

const described = <T extends z.ZodType>(schema: T, description: string): T => schema.meta({ description });

/** Decimal integer string, 0..2^256-1 (wei, token units, cents). */
const wei = () => described(z.string().regex(/^(0|[1-9][0-9]*)$/), 'Decimal integer string, 0..2^256-1');
const address = () => described(z.string().regex(/^0x[0-9a-fA-F]{40}$/), 'EIP-55 checksummed address');
const hash = () => z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const timestamp = () => described(z.iso.datetime(), 'ISO 8601 UTC');

export const IntentLaunchSchema = described(
  z.strictObject({
    type: described(
      z.enum(LAUNCH_TYPES),
      'public_transaction: seen pending (public mempool), bought in its block, right behind it; private_transaction: first seen in its block although the mempool is followed (sent privately to a builder); block: seen in its block, the mempool not followed',
    ),
    txHash: described(hash().nullable(), 'The launch transaction (the pair’s first liquidity); null for a pair found already liquid'),
    blockNumber: described(z.number().int().min(0).nullable(), 'Its block; null while the launch transaction is still pending'),
    launchTxHash: described(hash().nullable(), 'Merkle’s name of txHash (the same value)'),
  }),
  'The launch the intent was acted on at (checked, sent, bought)',
);
export type IntentLaunch = z.output<typeof IntentLaunchSchema>;

/** Merkle's `token` of an intent record: the token and who deployed it (null until read from the chain). */
export const IntentTokenSchema = described(
  z.strictObject({
    chainId: z.number().int().min(1),
    address: address(),
    deployer: described(address().nullable(), 'The address that sent the transaction creating the token; null until known'),
    deployerHash: described(hash().nullable(), 'That transaction; null until known'),
    deployerBlocknumber: described(z.number().int().min(0).nullable(), 'Its block; null until known'),
    deployerTimestamp: described(z.number().int().min(0).nullable(), 'Its block’s time, unix seconds; null until known'),
  }),
  'Merkle’s token facts: read from the chain after the intent is created (null until known, and for a token created by another contract)',
);
export type IntentToken = z.output<typeof IntentTokenSchema>;

/** The record every intent endpoint returns: the creation fields plus the intent's own. */
export const IntentRecordSchema = described(
  z.strictObject({
    id: described(z.uuid(), 'UUIDv7, time-ordered'),
    status: z.enum(INTENT_STATUSES),
    chainId: z.number().int().min(1),
    wallet: address(),
    tokenAddress: address(),
    bribe: wei(),
    buyAmount: wei(),
    expiry: described(z.number().int().min(0), 'Unix seconds'),
    maxBuyTax: z.number().min(0).max(1).nullable(),
    maxSellTax: z.number().min(0).max(1).nullable(),
    minIn: wei().nullable(),
    minOut: wei().nullable(),
    minLiquidity: wei().nullable(),
    feeBps: z.number().int().min(0).max(10_000).nullable(),
    feeRecipient: address().nullable(),
    firstOrFail: z.boolean().nullable(),
    maxSlippageBps: z.number().int().min(0).max(10_000).nullable(),
    gasTip: wei().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    txHash: described(hash().nullable(), 'The buy transaction, once sent'),
    executedAt: timestamp().nullable(),
    statusReason: described(
      z.string().nullable(),
      `Why the intent ended as it did (failed: ${INTENT_FAILURE_REASONS.join(', ')}), or why a pending one has not executed yet (chain_unreachable, execution_unavailable)`,
    ),
    /**
     * The measured values behind the latest status change (the notification's `data`): e.g.
     * `{max, actual}` for a tax, `{minOut, quoted}`, `{txHash}` once the buy is sent; null when none.
     */
    statusData: IntentStatusDataSchema.nullable(),
    notificationWebhookUrl: described(
      z.string().nullable(),
      'Receives an HMAC-signed POST for every status change. Must resolve to public addresses only (checked at connect time); redirects are not followed.',
    ),
    webhookUrl: described(
      z.string().nullable(),
      'Signing webhook: receives the unsigned buy at launch and answers {signedTransactions: [raw]} (see docs/api/signing-webhook.md). Public addresses only; a redirect is signer_refused.',
    ),
    webhookBatch: described(
      z.boolean().nullable(),
      'true: the signing webhook takes batches (one SigningBatchRequest for the buys of one launch that name it; see docs/api/signing-webhook.md)',
    ),
    webhookProtocol: described(
      z.enum(WEBHOOK_PROTOCOLS).nullable(),
      'What the signing webhook is spoken to in: `merkle` (Merkle’s signature webhook, the default) or `tradeinfra` (ours: batches, decimal fields); null without a webhookUrl',
    ),
    /** `bot`: signed at launch by `webhookUrl`; `wallet`: pre-signed (`POST /v1/wallet/intent`), executed through the executor contract. */
    kind: described(
      z.enum(INTENT_KINDS),
      '`bot`: signed at launch by webhookUrl; `wallet`: pre-signed (POST /v1/wallet/intent), executed through the executor contract; `exit`: a sell (POST /v1/exit)',
    ),
    /** A wallet intent's one-use executor nonce (decimal string); null for a bot intent. */
    nonce: described(wei().nullable(), 'A wallet intent’s one-use executor nonce; null for a bot intent'),
    /** The launch the intent was acted on at (checked, sent, bought); null while it waits for one. */
    launch: described(IntentLaunchSchema.nullable(), 'The launch the intent was acted on at; null while it waits for one'),
    createdAtMs: described(z.number().int().min(0), 'Merkle’s createdAt: unix milliseconds'),
    error: described(
      z.enum(MERKLE_INTENT_ERRORS).nullable(),
      'Merkle’s error code, from statusReason: insufficient_funds → balance_too_low, allowance_too_low, chain_unreachable / execution_unavailable → balance_fetch_error, not_included → not_included_in_bundle, any other reason of a failed or error intent → unknown; null while fine',
    ),
    minBuy: described(wei().nullable(), 'Merkle’s name of minIn (the same value)'),
    token: IntentTokenSchema,
    exit: described(
      ExitRecordSchema.nullable(),
      'An exit’s triggers and measurements (kind `exit`); on a buy, the exit it creates when it completes; null for a buy without one',
    ),
  }),
  'Every creation field (unset optional fields are null) plus the intent’s own fields.',
);
export type IntentRecord = z.output<typeof IntentRecordSchema>;

/** One entry of a bulk cancel's answer, in the order of the request's ids. */
export const BulkCancelResultSchema = z.strictObject({
  id: described(z.uuid(), 'The id as asked (lowercase)'),
  /** The intent's status after the request; null when not found. */
  status: described(z.enum(INTENT_STATUSES).nullable(), "The intent's status after the request; null when not found"),
  cancelled: described(z.boolean(), 'true when this request cancelled it'),
  /**
   * null when cancelled; `not_found` (unknown, or another tenant's: existence is never
   * revealed), `not_pending` (already completed, expired, failed, cancelled or in error), or
   * `executing` (pending, but its buy was submitted: the chain decides its outcome).
   */
  reason: described(
    z.enum(BULK_CANCEL_REASONS).nullable(),
    "null when cancelled; `not_found`: unknown, or another tenant's (never told apart); `not_pending`: completed, expired, failed, in error, or already cancelled; `executing`: pending, but its buy was submitted (the chain decides)",
  ),
});
export type BulkCancelResult = z.output<typeof BulkCancelResultSchema>;

/**
 * One notification: the body of every webhook delivery and of every server-sent event. Merkle's
 * fields (`intentId`, `chainId`, `type`, `reason`, `data`) alongside ours (`id`, `event`,
 * `occurredAt`, `tenantId`, `intent`); see `notificationFields` for the mapping.
 */
export const IntentEventSchema = described(
  z.strictObject({
    /** Event id (UUIDv7); also the JetStream `Nats-Msg-Id`, so a republish is deduplicated. */
    id: described(z.uuid(), 'Event id, also `x-notification-id`: dedupe on it (delivery is at least once)'),
    intentId: z.uuid(),
    chainId: z.number().int().min(1),
    type: z.enum(NOTIFICATION_TYPES),
    reason: described(
      z.string(),
      'Machine-readable: the failure reason (the intent’s statusReason) or the type’s own (created, launch_detected, completed, expired, cancelled)',
    ),
    /** The measured values (the intent's `statusData`, `{}` when it has none). */
    data: described(IntentStatusDataSchema, 'The intent’s statusData; `{}` when it is null'),
    /** Our own event name. */
    event: described(z.enum(INTENT_EVENT_TYPES), 'Our own event name (the `type` of earlier releases)'),
    occurredAt: timestamp(),
    tenantId: z.string(),
    /** The intent as of the change. */
    intent: IntentRecordSchema,
  }),
  'The body of every notification webhook POST and every server-sent event (`data:`), in Merkle’s shape (`intentId`, `chainId`, `type`, `reason`, `data`) plus ours.',
);
export type IntentEvent = z.output<typeof IntentEventSchema>;

/** `GET /v1/intents/notifications/secret` and its rotation: the key webhook signatures are made with. */
export const NotificationSecretSchema = z.strictObject({
  secret: described(z.string().regex(/^[0-9a-f]{64}$/), 'Hex HMAC-SHA256 key'),
});
export type NotificationSecret = z.output<typeof NotificationSecretSchema>;
