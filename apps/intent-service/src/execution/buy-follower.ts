import { FailureReason } from './checks.js';
import { type Outcome, type SubmittedIntent } from './execution.repository.js';
import { type ExecutedChain } from './chain-clients.js';

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

const notIncluded = (s: SubmittedIntent): Outcome => ({
  id: s.id,
  status: 'failed',
  reason: FailureReason.NotIncluded,
  executedAt: null,
  data: { txHash: s.txHash, targetBlock: String(s.targetBlock) },
});

/**
 * The buys whose receipt is in: mined → `completed`; reverted → `failed` (`not_included` when a
 * firstOrFail buy landed outside its target block, else `reverted`). Pure.
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
    else if (s.firstOrFail && BigInt(receipt.blockNumber) !== s.targetBlock) outcomes.push(notIncluded(s));
    else outcomes.push({ id: s.id, status: 'failed', reason: FailureReason.Reverted, executedAt: null, data: txHash });
    return false;
  });
  return { outcomes, waiting };
}

/**
 * The buys with no receipt yet, against the head and their senders' mined nonces (`nonces[i]`,
 * hex, of `waiting[i]`): firstOrFail past its target → `not_included`; past expiry → `expired`;
 * the nonce moved on → `nonceTaken` (to confirm); otherwise → `resend`. Pure.
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
    if (s.firstOrFail && head.number >= s.targetBlock) outcomes.push(notIncluded(s));
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
  const receipts = await rpc.batch<Receipt | null>(submitted.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })));
  const minedIn = new Set<string>();
  receipts.forEach((r) => r.result && minedIn.add(r.result.blockNumber));
  const blocks = await rpc.all<Block>([...minedIn].map((n) => ({ method: 'eth_getBlockByNumber', params: [n, false] })));
  const timestampOf = new Map(blocks.map((b) => [b.number, new Date(Number(BigInt(b.timestamp)) * 1000)]));
  const mined = settleMined(
    submitted,
    receipts.map((r) => r.result),
    timestampOf,
  );
  if (mined.waiting.length === 0) return { outcomes: mined.outcomes, resend: [] };
  const nonces = await rpc.all<string>(mined.waiting.map((s) => ({ method: 'eth_getTransactionCount', params: [s.wallet, 'latest'] })));
  const judged = judgeWaiting(mined.waiting, nonces, { number: BigInt(head.number), timestamp: BigInt(head.timestamp) });
  const outcomes = [...mined.outcomes, ...judged.outcomes];
  if (judged.nonceTaken.length > 0) {
    // The nonce moved on: another transaction took it, unless the buy itself was mined since
    // its receipt was read (then the next round records it).
    const again = await rpc.batch<unknown>(judged.nonceTaken.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })));
    outcomes.push(...nonceUsed(judged.nonceTaken, again));
  }
  return { outcomes, resend: judged.resend };
}
