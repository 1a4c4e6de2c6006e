import { FailureReason } from './checks.js';
import { type Outcome, type SubmittedIntent } from './execution.repository.js';
import { type ExecutedChain } from './chain-clients.js';
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
): { outcomes: Outcome[]; waiting: SubmittedIntent[] } {
  const outcomes: Outcome[] = [];
  const waiting = submitted.filter((s, i) => {
    const receipt = receipts[i];
    if (!receipt) return true;
    const executedAt = timestampOf.get(receipt.blockNumber) ?? null;
    const txHash = { txHash: s.txHash };
    if (receipt.status === '0x1') outcomes.push({ id: s.id, status: 'completed', reason: null, executedAt, data: txHash });
    else if (s.firstOrFail && BigInt(receipt.blockNumber) !== (s.launchBlock ?? s.targetBlock)) outcomes.push(notIncluded(s));
    else outcomes.push({ id: s.id, status: 'failed', reason: FailureReason.Reverted, executedAt: null, data: txHash });
    return false;
  });
  return { outcomes, waiting };
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
    else if (head.timestamp > s.expiry) {
      outcomes.push({ id: s.id, status: 'expired', reason: 'expiry reached before the buy was included', executedAt: null, data: { txHash: s.txHash } });
    } else if (BigInt(nonces[i]!) > s.nonce) nonceTaken.push(s);
    else resend.push(s);
  });
  return { outcomes, nonceTaken, resend };
}

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
 * What to send again after the block `head` came without the buys. Pure.
 * - Buys of a launch in a block: each for the next block, as before.
 * - Buys sent behind a launch still pending: again behind it, all of them in their checking order
 *   (highest bribe first), for the next block. Through relays, the ones that are not firstOrFail
 *   also go alone, as backup bundles for the block after: should the launch land without our
 *   bundle, they land right after it (alone they cannot land before it: they would revert, and a
 *   bundle admits no revert). firstOrFail ones never go into a backup.
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

/**
 * Follows a chain's submitted buys at a head: reads receipts, block times and nonces, and
 * decides (above) which are settled and which must be sent again.
 */
export async function followSubmitted(
  chain: Pick<ExecutedChain, 'rpc'>,
  submitted: SubmittedIntent[],
  head: Block,
): Promise<{ outcomes: Outcome[]; resend: SubmittedIntent[] }> {
  const { rpc } = chain;
  // Every node's receipts, with its head: a receipt any node has counts; a buy is missing only
  // when a node at `head` or past it has none (one behind, or answering null, proves nothing).
  const each = await rpc.fromEach<Receipt | string | null>([
    { method: 'eth_blockNumber', params: [] },
    ...submitted.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })),
  ]);
  const behind = !each.some(([answered]) => typeof answered?.result === 'string' && BigInt(answered.result) >= BigInt(head.number));
  const receipts = submitted.map((_, i) => ({ result: each.map((b) => b[i + 1]?.result as Receipt | null | undefined).find(Boolean) ?? null }));
  const minedIn = new Set<string>();
  receipts.forEach((r) => r.result && minedIn.add(r.result.blockNumber));
  const blocks = (await rpc.everywhere<Block>([...minedIn].map((n) => ({ method: 'eth_getBlockByNumber', params: [n, false] })))).map((r) => r.result ?? null);
  const timestampOf = new Map(blocks.flatMap((b) => (b ? [[b.number, new Date(Number(BigInt(b.timestamp)) * 1000)] as const] : [])));
  const mined = settleMined(
    submitted,
    receipts.map((r) => r.result),
    timestampOf,
  );
  if (mined.waiting.length === 0 || behind) return { outcomes: mined.outcomes, resend: [] };
  const nonces = await rpc.all<string>(mined.waiting.map((s) => ({ method: 'eth_getTransactionCount', params: [s.wallet, 'latest'] })));
  const judged = judgeWaiting(mined.waiting, nonces, { number: BigInt(head.number), timestamp: BigInt(head.timestamp) });
  const outcomes = [...mined.outcomes, ...judged.outcomes];
  if (judged.nonceTaken.length > 0) {
    // The nonce moved on: another transaction took it, unless the buy itself was mined since
    // its receipt was read (then the next round records it).
    const again = await rpc.everywhere<unknown>(judged.nonceTaken.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })));
    outcomes.push(...nonceUsed(judged.nonceTaken, again));
  }
  return { outcomes, resend: judged.resend };
}
