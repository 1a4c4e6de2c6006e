import type { WaitingAgainReason } from '@tradeinfra/contracts';
import { FailureReason } from './checks.js';
import { type Outcome, type SubmittedIntent, type WaitingAgain } from './execution.repository.js';
import { type Submission } from './submitter.js';

export interface Block {
  number: string;
  hash: string;
  timestamp: string;
  baseFeePerGas?: string;
}

export interface Receipt {
  status: string;
  blockNumber: string;
  transactionIndex?: string;
}

/** A firstOrFail buy that missed its block: the one after its launch's, or its pending launch's own once mined. */
const notIncluded = (s: SubmittedIntent): Outcome => ({
  id: s.id,
  status: 'failed',
  reason: FailureReason.NotIncluded,
  executedAt: null,
  data: { txHash: s.txHash, targetBlock: String(s.launchBlock ?? s.targetBlock) },
});

/**
 * The buys whose receipt is in: mined → `completed`; reverted → `failed` (`not_included` when a
 * firstOrFail buy landed outside its block: the one after a launch seen in a block, or the block
 * of the pending launch it was sent behind, once recorded; else `reverted`). Pure.
 * `receipts[i]` belongs to `submitted[i]`; `timestampOf` maps a block number (hex) to its time.
 */
export function settleMined(
  submitted: SubmittedIntent[],
  receipts: (Receipt | null | undefined)[],
  timestampOf: Map<string, Date>,
): { outcomes: Outcome[]; waiting: SubmittedIntent[]; revertedBehind: { buy: SubmittedIntent; receipt: Receipt }[] } {
  const outcomes: Outcome[] = [];
  const revertedBehind: { buy: SubmittedIntent; receipt: Receipt }[] = [];
  const waiting = submitted.filter((s, i) => {
    const receipt = receipts[i];
    if (!receipt) return true;
    const executedAt = timestampOf.get(receipt.blockNumber) ?? null;
    if (receipt.status === '0x1') outcomes.push({ id: s.id, status: 'completed', reason: null, executedAt, data: { txHash: s.txHash } });
    // Sent behind a pending launch: whether that launch came first decides (judgeBehind).
    else if (s.sentBehind) revertedBehind.push({ buy: s, receipt });
    else outcomes.push(revertedOutcome(s, BigInt(receipt.blockNumber), s.launchBlock ?? s.targetBlock));
    return false;
  });
  return { outcomes, waiting, revertedBehind };
}

/** A mined buy that reverted: `not_included` for a firstOrFail buy outside its launch's block (`launchBlock`), else `reverted`. */
function revertedOutcome(s: SubmittedIntent, minedIn: bigint, launchBlock: bigint): Outcome {
  if (s.firstOrFail && minedIn !== launchBlock) return { ...notIncluded(s), data: { txHash: s.txHash, targetBlock: String(launchBlock) } };
  return { id: s.id, status: 'failed', reason: FailureReason.Reverted, executedAt: null, data: { txHash: s.txHash } };
}

/** What the chain says of the pending launch a buy was sent behind. */
export interface LaunchFate {
  /** The launch transaction's receipt (null: not mined). */
  receipt: Receipt | null;
  /** Its sender's mined transaction count where the buy was judged (at the buy's block, or the head). */
  senderNonce: bigint;
}

/** Position of a transaction in the chain, for "mined before". */
const position = (r: Receipt): [bigint, bigint] => [BigInt(r.blockNumber), BigInt(r.transactionIndex ?? '0x0')];

/**
 * A buy sent behind a pending launch reverted (`receipt`): when its launch was mined, and before
 * it, the revert is the buy's own (`reverted`, or `not_included` for a firstOrFail buy outside
 * the launch's block); otherwise its launch never happened before it and the intent waits again:
 * `launch_replaced` when another transaction took the launch's nonce, else `launch_dropped`
 * (dropped from the pool, reverted, or mined after the buy). Pure.
 */
export function judgeRevertedBehind(buy: SubmittedIntent, receipt: Receipt, fate: LaunchFate): { outcome: Outcome } | { waitAgain: WaitingAgain } {
  const launch = fate.receipt;
  if (launch?.status === '0x1') {
    const [lb, li] = position(launch);
    const [bb, bi] = position(receipt);
    if (lb < bb || (lb === bb && li < bi)) return { outcome: revertedOutcome(buy, bb, lb) };
  }
  return { waitAgain: waitingAgain(buy, fate) };
}

/** The intent of a buy whose launch never happened waits again: `launch_replaced` when another transaction took the launch's nonce, else `launch_dropped`. */
function waitingAgain(buy: SubmittedIntent, fate: LaunchFate): WaitingAgain {
  const replaced = fate.receipt === null && fate.senderNonce > buy.sentBehind!.nonce;
  const reason: WaitingAgainReason = replaced ? 'launch_replaced' : 'launch_dropped';
  return { id: buy.id, txHash: buy.txHash, reason, launchTxHash: buy.sentBehind!.txHash };
}

/**
 * A buy with no receipt, sent behind a launch that is no longer pending and was not mined (or
 * reverted): waits while a node holds it; once none does, waits again (nonce free) or fails
 * `nonce_used` (nonce taken). Null: nothing to do yet. Pure (docs/design/following-buys.md).
 */
export function judgeOrphan(
  buy: SubmittedIntent,
  fate: LaunchFate,
  buyKnown: boolean,
  senderNonce: bigint,
): { outcome: Outcome } | { waitAgain: WaitingAgain } | null {
  if (buyKnown) return null;
  if (senderNonce > buy.nonce) return { outcome: nonceUsed([buy], [{}])[0]! };
  return { waitAgain: waitingAgain(buy, fate) };
}

/**
 * The buys with no receipt yet, against the head and their senders' mined nonces (`nonces[i]`,
 * hex, of `waiting[i]`): firstOrFail past its target → `not_included` (unless the launch it was
 * sent behind is still pending: its block is still to come); past expiry → `expired`; the nonce
 * moved on → `nonceTaken` (to confirm); otherwise → `resend`. Pure.
 */
export function judgeWaiting(
  waiting: SubmittedIntent[],
  nonces: string[],
  head: { number: bigint; timestamp: bigint },
): { outcomes: Outcome[]; nonceTaken: SubmittedIntent[]; resend: SubmittedIntent[] } {
  const outcomes: Outcome[] = [];
  const nonceTaken: SubmittedIntent[] = [];
  const resend: SubmittedIntent[] = [];
  waiting.forEach((s, i) => {
    // Receipts were read after `head`: a buy in any block up to it would have shown one.
    if (s.firstOrFail && s.behind === null && head.number >= s.targetBlock) outcomes.push(notIncluded(s));
    else if (head.timestamp > s.expiry) outcomes.push(expired(s));
    else if (BigInt(nonces[i]!) > s.nonce) nonceTaken.push(s);
    else resend.push(s);
  });
  return { outcomes, nonceTaken, resend };
}

export const expired = (s: SubmittedIntent): Outcome => ({
  id: s.id,
  status: 'expired',
  reason: 'expiry reached before the buy was included',
  executedAt: null,
  data: { txHash: s.txHash },
});

/**
 * Buys whose nonce moved on, with their receipt read again: still none (and no error) → another
 * transaction took the nonce (`nonce_used`); a receipt now → the next round records it. Pure.
 */
export function nonceUsed(nonceTaken: SubmittedIntent[], again: { result?: unknown; error?: unknown }[]): Outcome[] {
  return nonceTaken.flatMap((s, i): Outcome[] =>
    !again[i]!.error && !again[i]!.result
      ? [{ id: s.id, status: 'failed', reason: FailureReason.NonceUsed, executedAt: null, data: { txHash: s.txHash } }]
      : [],
  );
}

/** Buys to send for one block, behind a pending launch or not. */
export interface Resend {
  submissions: Submission[];
  targetBlock: bigint;
  /** The pending launch's signed bytes the buys must follow (one bundle, the launch first). */
  behind?: string;
}

/**
 * What to send again after the block `head` came without the buys: each for the next block;
 * those behind a pending launch again behind it, in checking order, with backup bundles through
 * relays (never for firstOrFail). Pure (docs/design/following-buys.md).
 */
export function planResends(resend: SubmittedIntent[], head: bigint, bundles: boolean): Resend[] {
  const submission = (s: SubmittedIntent): Submission => ({ intentId: s.id, raw: s.signedTx, hash: s.txHash });
  const plain = resend.filter((s) => s.behind === null);
  const plans: Resend[] = plain.length > 0 ? [{ submissions: plain.map(submission), targetBlock: head + 1n }] : [];
  const byLaunch = new Map<string, SubmittedIntent[]>();
  for (const s of resend) if (s.behind !== null) byLaunch.set(s.behind, [...(byLaunch.get(s.behind) ?? []), s]);
  for (const [behind, buys] of byLaunch) {
    const ordered = [...buys].sort((a, b) => (a.bribe === b.bribe ? (a.id < b.id ? -1 : 1) : a.bribe > b.bribe ? -1 : 1));
    plans.push({ submissions: ordered.map(submission), targetBlock: head + 1n, behind });
    const backup = ordered.filter((s) => !s.firstOrFail);
    if (bundles && backup.length > 0) plans.push({ submissions: backup.map(submission), targetBlock: head + 2n });
  }
  return plans;
}

/** What following the submitted buys at a head decided. */
export interface Followed {
  outcomes: Outcome[];
  /** Buys whose launch never happened: their intents wait again. */
  waitAgain: WaitingAgain[];
  resend: SubmittedIntent[];
}

/**
 * The launch a mined buy's outcome is recorded with, where the row does not hold its block yet.
 * Undefined: not known yet (the outcome waits for it); null: nothing to write. Pure
 * (docs/design/following-buys.md).
 */
export function outcomeLaunch(s: SubmittedIntent, launchReceipt: Receipt | null | undefined): Outcome['launch'] | null | undefined {
  if (s.launchStamped) return null;
  if (s.sentBehind && launchReceipt?.status === '0x1') return { txHash: s.sentBehind.txHash, block: BigInt(launchReceipt.blockNumber) };
  if (s.tokenLaunch) return s.tokenLaunch;
  return s.sentBehind ? undefined : null;
}

/** A waiting buy whose pending launch the chain shows mined: no longer sent behind it, and that launch's block is its launch block. Pure. */
export function launchSeenMined(s: SubmittedIntent, launchReceipt: Receipt | null | undefined): SubmittedIntent {
  if (s.behind === null || launchReceipt?.status !== '0x1') return s;
  return { ...s, behind: null, launchBlock: s.launchBlock ?? BigInt(launchReceipt.blockNumber) };
}
