import { INTENT_FAILURE_REASONS } from './execution.js';
import type { IntentRecord } from './intent-record.js';
import { INTENT_EVENT_TYPES } from './intent-vocabulary.js';
import {
  FAILURE_NOTIFICATION_TYPE,
  MERKLE_REASON_NAMES,
  merkleIntentError,
  NOTIFICATION_TYPES,
  notificationFields,
  PASSED_ON_REASONS,
  STATUS_DATA_KEYS,
} from './notifications.js';

const at = (statusReason: string | null, statusData: IntentRecord['statusData'] = null) => ({ statusReason, statusData });

describe('notification type, reason and data', () => {
  it('maps every failure reason, and nothing else, to intent_ignored or intent_failed', () => {
    expect(Object.keys(FAILURE_NOTIFICATION_TYPE).sort()).toEqual([...INTENT_FAILURE_REASONS].sort());
    expect(Object.keys(STATUS_DATA_KEYS).sort()).toEqual([...INTENT_FAILURE_REASONS].sort());
    for (const reason of INTENT_FAILURE_REASONS) {
      const fields = notificationFields('failed', at(reason));
      expect(fields.type).toBe(FAILURE_NOTIFICATION_TYPE[reason]);
      expect(['intent_ignored', 'intent_failed']).toContain(fields.type);
      expect(fields.reason).toBe(MERKLE_REASON_NAMES[reason] ?? reason);
      expect(fields.data).toEqual({});
    }
  });

  it('ignores on a check at launch, fails once the buy itself went wrong', () => {
    const ignored = INTENT_FAILURE_REASONS.filter((r) => FAILURE_NOTIFICATION_TYPE[r] === 'intent_ignored');
    const failed = INTENT_FAILURE_REASONS.filter((r) => FAILURE_NOTIFICATION_TYPE[r] === 'intent_failed');
    expect(ignored).toEqual([
      'nothing_to_buy',
      'min_in_not_met',
      'liquidity_unknown',
      'liquidity_too_low',
      'buy_reverted',
      'buy_tax_too_high',
      'sell_tax_too_high',
      'honeypot',
      'min_out_not_met',
      'slippage_too_high',
      'insufficient_funds',
      'allowance_too_low',
    ]);
    expect(failed).toEqual([
      'no_signer',
      'signer_unreachable',
      'signer_timeout',
      'signer_refused',
      'signature_invalid',
      'submission_rejected',
      'reverted',
      'not_included',
      'nonce_used',
    ]);
  });

  it('gives every event a type, and every notification type comes from some event', () => {
    const seen = new Set<string>();
    for (const event of INTENT_EVENT_TYPES) {
      for (const reason of [null, ...INTENT_FAILURE_REASONS, ...PASSED_ON_REASONS, 'cancelled by the client', 'expiry reached before launch']) {
        const { type, reason: r } = notificationFields(event, at(reason));
        expect(NOTIFICATION_TYPES).toContain(type);
        expect(r).toMatch(/^[a-z_]+$/); // a machine-readable code, never a sentence
        seen.add(type);
      }
    }
    expect([...seen].sort()).toEqual([...NOTIFICATION_TYPES].sort());
  });

  it.each([
    ['created', null, 'intent_created', 'created'],
    ['tx_pending', null, 'intent_tx_pending', 'launch_detected'],
    ['completed', null, 'intent_completed', 'completed'],
    ['cancelled', 'cancelled by the client', 'intent_cancelled', 'cancelled'],
    ['expired', 'expiry reached before launch', 'intent_expired', 'expired'],
    ['expired', 'expiry reached before the buy was included', 'intent_expired', 'expired'],
    ['expired', 'chain_unreachable', 'intent_expired', 'chain_unreachable'],
    ['expired', 'execution_unavailable', 'intent_expired', 'execution_unavailable'],
    ['error', 'outcome_unknown', 'intent_error', 'outcome_unknown'],
    ['failed', 'something_new', 'intent_failed', 'something_new'],
  ] as const)('%s with statusReason %s → %s / %s', (event, statusReason, type, reason) => {
    expect(notificationFields(event, at(statusReason))).toEqual({ type, reason, data: {} });
  });

  it('sends Merkle’s name of a reason where Merkle has another (min_in_too_low), and ours everywhere else', () => {
    const data = { minIn: '20000000000', actual: '4000000000' };
    expect(notificationFields('failed', at('min_in_not_met', data))).toEqual({ type: 'intent_ignored', reason: 'min_in_too_low', data });
    expect(Object.entries(MERKLE_REASON_NAMES)).toEqual([['min_in_not_met', 'min_in_too_low']]);
  });

  it.each([
    ['failed', 'insufficient_funds', 'balance_too_low'],
    ['failed', 'allowance_too_low', 'allowance_too_low'],
    ['failed', 'not_included', 'not_included_in_bundle'],
    ['pending', 'chain_unreachable', 'balance_fetch_error'],
    ['expired', 'execution_unavailable', 'balance_fetch_error'],
    ['failed', 'buy_tax_too_high', 'unknown'],
    ['error', 'outcome_unknown', 'unknown'],
    ['pending', null, null],
    ['completed', null, null],
    ['completed', 'execution_unavailable', null],
    ['cancelled', 'cancelled by the client', null],
    ['expired', 'expiry reached before launch', null],
  ] as const)('Merkle’s error of a %s intent with statusReason %s is %s', (status, statusReason, error) => {
    expect(merkleIntentError(status, statusReason)).toBe(error);
  });

  it('carries the intent’s statusData as data', () => {
    const data = { max: 0.05, actual: 0.1 };
    expect(notificationFields('failed', at('buy_tax_too_high', data))).toEqual({ type: 'intent_ignored', reason: 'buy_tax_too_high', data });
    expect(notificationFields('tx_pending', at(null, { txHash: '0xab' })).data).toEqual({ txHash: '0xab' });
  });
});
