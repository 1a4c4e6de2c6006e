/** The intent's words: statuses, kinds, launch types, event types; a leaf every intent contract imports. */
export const INTENT_STATUSES = ['pending', 'completed', 'expired', 'failed', 'cancelled', 'error'] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];
export const TERMINAL_INTENT_STATUSES: readonly IntentStatus[] = ['completed', 'expired', 'failed', 'cancelled', 'error'];

/** What an intent's signing webhook speaks: Merkle's signature webhook (default) or ours. */
export const WEBHOOK_PROTOCOLS = ['merkle', 'tradeinfra'] as const;
export type WebhookProtocol = (typeof WEBHOOK_PROTOCOLS)[number];

/** Why a bulk cancel did not cancel an intent. */
export const BULK_CANCEL_REASONS = ['not_found', 'not_pending', 'executing'] as const;
export type BulkCancelReason = (typeof BULK_CANCEL_REASONS)[number];

/**
 * How the launch reached the executor: `public_transaction` (seen pending, buys placed behind it),
 * `private_transaction` (first seen in its block on a chain whose mempool is followed), `block`
 * (seen in its block; the mempool is not followed).
 */
export const LAUNCH_TYPES = ['public_transaction', 'private_transaction', 'block'] as const;
export type LaunchType = (typeof LAUNCH_TYPES)[number];

export const INTENT_KINDS = ['bot', 'wallet', 'exit'] as const;
export type IntentKind = (typeof INTENT_KINDS)[number];

// ---- JetStream events (intent service outbox → stream INTENT_EVENTS) ----

/**
 * Our event names: the outbox's `type`, the JetStream subject's last token, the body's `event`.
 * `waiting`: a buy sent behind a pending launch that never happened (the launch was replaced or
 * dropped): the intent is pending again and buys at the token's next launch.
 */
export const INTENT_EVENT_TYPES = ['created', 'tx_pending', 'waiting', 'cancelled', 'expired', 'completed', 'failed', 'error'] as const;
export type IntentEventType = (typeof INTENT_EVENT_TYPES)[number];
