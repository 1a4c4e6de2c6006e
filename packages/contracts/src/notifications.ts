import { INTENT_FAILURE_REASONS, type IntentFailureReason } from './execution.js';
import { z } from 'zod';
import type { IntentEventType } from './intent-vocabulary.js';

/**
 * Notification types, in Merkle's shape (`type` of every webhook delivery and server-sent event).
 * Our own event name (`created`, `tx_pending`, …) stays in the body's `event` field.
 */
export const NOTIFICATION_TYPES = [
  'intent_created',
  'intent_tx_pending',
  'intent_waiting',
  'intent_ignored',
  'intent_completed',
  'intent_failed',
  'intent_expired',
  'intent_cancelled',
  'intent_error',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/**
 * The measured values behind a status change: the notification's `data` and the intent's
 * `statusData`. Wei, token and cent amounts are decimal strings (exact); taxes are fractions
 * (JSON numbers, as Merkle sends them); basis points are integers. Which keys appear depends on
 * the reason (see {@link STATUS_DATA_KEYS}).
 */
export const IntentStatusDataSchema = z.record(z.string(), z.union([z.string(), z.number()])).meta({
  description:
    'The measured values behind the latest status change (the notification’s `data`): `{max, actual}` for buy_tax_too_high / sell_tax_too_high (fractions), ' +
    '`{minIn, actual}` (wei), `{minLiquidity, actual}` (cents), `{minOut, quoted}` (token units), `{maxSlippageBps, actual}` (basis points, rounded up), ' +
    '`{balance, required}` for insufficient_funds, `{allowance, required}` for allowance_too_low, `{buyAmount, fee}` for nothing_to_buy, `{txHash}` once the buy is sent (and on completed, reverted, nonce_used, ' +
    'submission_rejected, an expiry after sending, error), `{txHash, targetBlock}` for not_included. Wei, token and cent amounts are decimal strings.',
});
export type IntentStatusData = z.output<typeof IntentStatusDataSchema>;

/**
 * Each failure reason's notification: `intent_ignored` when a check at launch refused the buy
 * (nothing was signed or sent), `intent_failed` when the buy itself could not be signed, sent
 * or mined. Exhaustive: a new failure reason does not compile until it is mapped here.
 */
export const FAILURE_NOTIFICATION_TYPE: Record<IntentFailureReason, 'intent_ignored' | 'intent_failed'> = {
  nothing_to_buy: 'intent_ignored',
  min_in_not_met: 'intent_ignored',
  liquidity_unknown: 'intent_ignored',
  liquidity_too_low: 'intent_ignored',
  buy_reverted: 'intent_ignored',
  buy_tax_too_high: 'intent_ignored',
  sell_tax_too_high: 'intent_ignored',
  honeypot: 'intent_ignored',
  min_out_not_met: 'intent_ignored',
  slippage_too_high: 'intent_ignored',
  insufficient_funds: 'intent_ignored',
  no_signer: 'intent_failed',
  signer_unreachable: 'intent_failed',
  signer_timeout: 'intent_failed',
  signer_refused: 'intent_failed',
  signature_invalid: 'intent_failed',
  submission_rejected: 'intent_failed',
  reverted: 'intent_failed',
  not_included: 'intent_failed',
  nonce_used: 'intent_failed',
  allowance_too_low: 'intent_ignored',
};

/** The keys of `data` / `statusData` for each failure reason (documented; asserted by the tests). */
export const STATUS_DATA_KEYS: Record<IntentFailureReason, readonly string[]> = {
  nothing_to_buy: ['buyAmount', 'fee'],
  min_in_not_met: ['minIn', 'actual'],
  liquidity_unknown: ['minLiquidity'],
  liquidity_too_low: ['minLiquidity', 'actual'],
  buy_reverted: [],
  buy_tax_too_high: ['max', 'actual'],
  sell_tax_too_high: ['max', 'actual'],
  honeypot: [],
  min_out_not_met: ['minOut', 'quoted'],
  slippage_too_high: ['maxSlippageBps', 'actual'],
  insufficient_funds: ['balance', 'required'],
  no_signer: [],
  signer_unreachable: [],
  signer_timeout: [],
  signer_refused: [],
  signature_invalid: [],
  submission_rejected: ['txHash'],
  reverted: ['txHash'],
  not_included: ['txHash', 'targetBlock'],
  /** A wallet intent whose executor nonce is used or revoked fails before sending: no txHash then. */
  nonce_used: ['txHash'],
  allowance_too_low: ['allowance', 'required'],
};

/**
 * Why an intent whose buy went out behind a pending launch waits again (`waiting`,
 * `intent_waiting`): the launch's nonce was taken by another transaction, or the launch was not
 * mined before the buy (dropped from the pool, reverted, or mined after it).
 */
export const WAITING_AGAIN_REASONS = ['launch_replaced', 'launch_dropped'] as const;
export type WaitingAgainReason = (typeof WAITING_AGAIN_REASONS)[number];

/**
 * Merkle's name of a reason where it differs from ours (docs.merkle.io, notification webhook):
 * notifications send Merkle's in `reason`; the intent's `statusReason` keeps ours.
 */
export const MERKLE_REASON_NAMES: Partial<Record<IntentFailureReason, string>> = {
  min_in_not_met: 'min_in_too_low',
};

/** Merkle's `error` of an intent record (docs.merkle.io, `POST /v1/intents` answer). */
export const MERKLE_INTENT_ERRORS = [
  'balance_too_low',
  'allowance_too_low',
  'balance_fetch_error',
  'allowance_fetch_error',
  'not_included_in_bundle',
  'unknown',
] as const;
export type MerkleIntentError = (typeof MERKLE_INTENT_ERRORS)[number];

/**
 * Merkle's `error` for our statusReasons that have one: funds and allowance short, the chain not
 * read (a balance could not be fetched), a buy the block left out. Any other reason of a `failed`
 * or `error` intent is `unknown`; an intent that is fine (pending without a problem, completed,
 * cancelled, expired) has none, whatever reason a completed or cancelled one still carries.
 */
export const MERKLE_ERROR_OF_REASON: Readonly<Record<string, MerkleIntentError>> = {
  insufficient_funds: 'balance_too_low',
  allowance_too_low: 'allowance_too_low',
  chain_unreachable: 'balance_fetch_error',
  execution_unavailable: 'balance_fetch_error',
  not_included: 'not_included_in_bundle',
};

/** Merkle's `error` of an intent (see MERKLE_ERROR_OF_REASON); the record's SQL follows the same rule. */
export function merkleIntentError(status: string, statusReason: string | null): MerkleIntentError | null {
  if (status === 'completed' || status === 'cancelled') return null;
  const mapped = statusReason === null ? undefined : MERKLE_ERROR_OF_REASON[statusReason];
  if (mapped) return mapped;
  return status === 'failed' || status === 'error' ? 'unknown' : null;
}

/** statusReasons (besides the failure reasons) a notification passes on as its `reason`. */
export const PASSED_ON_REASONS = ['chain_unreachable', 'execution_unavailable', 'outcome_unknown'] as const;

const FAILURE_REASONS = new Set<string>(INTENT_FAILURE_REASONS);
const PASSED_ON = new Set<string>(PASSED_ON_REASONS);

/** A statusReason that is a machine-readable code (`snake_case`), else null. */
function asCode(statusReason: string | null): string | null {
  return statusReason !== null && /^[a-z][a-z0-9_]*$/.test(statusReason) ? statusReason : null;
}

export interface NotificationFields {
  type: NotificationType;
  reason: string;
  data: IntentStatusData;
}

/**
 * Merkle's `type`, `reason` and `data` for one of our events, from the event name and the intent
 * as of the change; `data` is the intent's `statusData` (`{}` when null). The mapping, event by
 * event: docs/design/code-notes.md#notification-fields.
 */
export function notificationFields(event: IntentEventType, intent: { statusReason: string | null; statusData: IntentStatusData | null }): NotificationFields {
  const data = intent.statusData ?? {};
  const passedOn = intent.statusReason !== null && PASSED_ON.has(intent.statusReason) ? intent.statusReason : null;
  switch (event) {
    case 'created':
      return { type: 'intent_created', reason: 'created', data };
    case 'tx_pending':
      return { type: 'intent_tx_pending', reason: 'launch_detected', data };
    case 'waiting':
      return { type: 'intent_waiting', reason: asCode(intent.statusReason) ?? 'launch_dropped', data };
    case 'completed':
      return { type: 'intent_completed', reason: 'completed', data };
    case 'cancelled':
      return { type: 'intent_cancelled', reason: 'cancelled', data };
    case 'expired':
      return { type: 'intent_expired', reason: passedOn ?? 'expired', data };
    case 'error':
      return { type: 'intent_error', reason: asCode(intent.statusReason) ?? 'error', data };
    case 'failed': {
      const reason = asCode(intent.statusReason) ?? 'failed';
      const known = FAILURE_REASONS.has(reason) ? (reason as IntentFailureReason) : null;
      const type = known ? FAILURE_NOTIFICATION_TYPE[known] : 'intent_failed';
      return { type, reason: (known && MERKLE_REASON_NAMES[known]) ?? reason, data };
    }
  }
}
