import type { SimulatedCall } from '@tradeinfra/contracts';
import type { DecodedTx } from '../intake/transaction-checks.js';

/** One transaction behind the target, with what the simulation did with it. */
export interface SimulatedBackrun {
  tx: DecodedTx;
  canRevert: boolean;
  call: SimulatedCall;
}

export type Verdict = { ok: true; bid: bigint; gasUsed: bigint } | { ok: false; reason: string };

/**
 * The native value the backrun transactions moved to `beneficiary` (lowercase), net: their own
 * value sent to it, plus value sent to it by nested calls that did not revert, less what left it.
 * A reverted transaction moved nothing.
 */
export function paymentTo(beneficiary: string, backruns: readonly SimulatedBackrun[]): bigint {
  let paid = 0n;
  for (const { tx, call } of backruns) {
    if (call.status !== 1) continue;
    if (tx.to === beneficiary) paid += tx.value;
    if (tx.from === beneficiary) paid -= tx.value;
    for (const t of call.internalTransfers) {
      if (t.to.toLowerCase() === beneficiary) paid += BigInt(t.amount);
      if (t.from.toLowerCase() === beneficiary) paid -= BigInt(t.amount);
    }
  }
  return paid;
}

const sameOutcome = (a: SimulatedCall, b: SimulatedCall) =>
  a.status === b.status && a.result === b.result && a.gasUsed === b.gasUsed && JSON.stringify(a.logs) === JSON.stringify(b.logs);

/**
 * Whether a bundle may bid: every transaction that may not revert succeeded, the target did
 * exactly what it does alone on the same state, and the beneficiary is paid more than nothing.
 */
export function judgeBundle(beneficiary: string, target: SimulatedCall, targetAlone: SimulatedCall, backruns: readonly SimulatedBackrun[]): Verdict {
  if (!sameOutcome(target, targetAlone)) return { ok: false, reason: "the bundle changes the target transaction's own outcome" };
  for (const [i, b] of backruns.entries()) {
    if (b.call.status !== 1 && !b.canRevert) {
      const why = b.call.error ? `${b.call.error.type}: ${b.call.error.message}` : 'reverted';
      return { ok: false, reason: `body[${i + 1}] (${b.tx.hash}) reverts (${why}) and canRevert is false` };
    }
  }
  const bid = paymentTo(beneficiary, backruns);
  if (bid <= 0n) return { ok: false, reason: `the bundle pays nothing to the beneficiary ${beneficiary}: a bid is native value sent to it by the backrun` };
  const gasUsed = backruns.reduce((sum, b) => sum + BigInt(b.call.gasUsed), 0n);
  return { ok: true, bid, gasUsed };
}
