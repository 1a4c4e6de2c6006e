import { type ExecutedChain } from './chain-clients.js';
import { FailureReason } from './checks.js';
import { type Outcome, type SubmittedIntent, type WaitingAgain } from './execution.types.js';
import {
  expired,
  judgeOrphan,
  judgeRevertedBehind,
  judgeWaiting,
  nonceUsed,
  outcomeLaunch,
  settleMined,
  type Block,
  launchSeenMined,
  type Followed,
  type Receipt,
} from './buy-judgement.js';

/**
 * Follows a chain's submitted buys at a head: reads receipts, block times and nonces, and
 * decides (above) which are settled, which wait again (their pending launch never happened) and
 * which must be sent again.
 */
export async function followSubmitted(chain: Pick<ExecutedChain, 'rpc'>, submitted: SubmittedIntent[], head: Block): Promise<Followed> {
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
  const outcomes: Outcome[] = [];
  const waitAgain: WaitingAgain[] = [];
  // Buys sent behind a launch that is no longer pending nor recorded mined behind them: did it happen?
  const orphans = behind ? [] : mined.waiting.filter((s) => s.sentBehind && s.behind === null && s.launchBlock === null);
  const minedBehind = submitted.filter((s, i) => receipts[i]!.result && s.sentBehind && !s.launchStamped);
  // Buys still behind a launch the block watcher has not recorded yet: mined meanwhile, or not.
  const stillBehind = mined.waiting.filter((s) => s.sentBehind && s.behind !== null);
  const launchReceipts = await readLaunchReceipts(rpc, [...minedBehind, ...orphans, ...stillBehind]);
  // A mined buy's outcome is recorded with its launch's block (or waits for it).
  const byId = new Map(submitted.map((s) => [s.id, s]));
  const withLaunch = (o: Outcome) => {
    const s = byId.get(o.id)!;
    const launch = outcomeLaunch(s, s.sentBehind ? launchReceipts.get(s.sentBehind.txHash) : null);
    if (launch !== undefined) outcomes.push(launch ? { ...o, launch } : o);
  };
  mined.outcomes.forEach(withLaunch);
  // Whether a launch was mined is told only by a node at the head (one behind may not have it yet).
  if (mined.revertedBehind.length > 0 && !behind) {
    // The launch sender's nonce at each buy's block: taken by another transaction, or not.
    const nonces = await highestCounts(
      rpc,
      mined.revertedBehind.map(({ buy, receipt }) => [buy.sentBehind!.sender, receipt.blockNumber]),
    );
    mined.revertedBehind.forEach(({ buy, receipt }, i) => {
      const judged = judgeRevertedBehind(buy, receipt, { receipt: launchReceipts.get(buy.sentBehind!.txHash) ?? null, senderNonce: nonces[i]! });
      if ('outcome' in judged) withLaunch(judged.outcome);
      else waitAgain.push(judged.waitAgain);
    });
  }
  // An orphan whose launch did get mined is followed as usual (the launch watcher records its block).
  const lost = new Set(orphans.filter((s) => launchReceipts.get(s.sentBehind!.txHash)?.status !== '0x1'));
  // A launch the chain shows mined is no longer sent behind, whatever the block watcher has recorded yet.
  const waiting = mined.waiting.filter((s) => !lost.has(s)).map((s) => launchSeenMined(s, s.sentBehind ? launchReceipts.get(s.sentBehind.txHash) : null));
  if (lost.size > 0) {
    const orphaned = [...lost];
    const [known, nonces, launchNonces] = await Promise.all([
      rpc.everywhere<unknown>(orphaned.map((s) => ({ method: 'eth_getTransactionByHash', params: [s.txHash] }))),
      highestCounts(
        rpc,
        orphaned.map((s) => [s.wallet, 'latest']),
      ),
      highestCounts(
        rpc,
        orphaned.map((s) => [s.sentBehind!.sender, 'latest']),
      ),
    ]);
    orphaned.forEach((s, i) => {
      const fate = { receipt: launchReceipts.get(s.sentBehind!.txHash) ?? null, senderNonce: launchNonces[i]! };
      if (BigInt(head.timestamp) > s.expiry) return void outcomes.push(expired(s));
      const judged = judgeOrphan(s, fate, (known[i]!.result ?? null) !== null, nonces[i]!);
      if (judged && 'outcome' in judged) outcomes.push(judged.outcome);
      else if (judged) waitAgain.push(judged.waitAgain);
    });
  }
  if (waiting.length === 0 || behind) return { outcomes, waitAgain, resend: [] };
  const nonces = await rpc.all<string>(waiting.map((s) => ({ method: 'eth_getTransactionCount', params: [s.wallet, 'latest'] })));
  const judged = judgeWaiting(waiting, nonces, { number: BigInt(head.number), timestamp: BigInt(head.timestamp) });
  // A missed launch block is recorded with that launch (its block known now, whatever the block watcher has written yet).
  for (const o of judged.outcomes)
    if (o.reason === FailureReason.NotIncluded) withLaunch(o);
    else outcomes.push(o);
  if (judged.nonceTaken.length > 0) {
    // The nonce moved on: another transaction took it, unless the buy itself was mined since
    // its receipt was read (then the next round records it).
    const again = await rpc.everywhere<unknown>(judged.nonceTaken.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })));
    outcomes.push(...nonceUsed(judged.nonceTaken, again));
  }
  return { outcomes, waitAgain, resend: judged.resend };
}

/** The receipts (null: not mined) of the launch transactions `buys` were sent behind, by hash, from any node that has them. */
async function readLaunchReceipts(rpc: ExecutedChain['rpc'], buys: SubmittedIntent[]): Promise<Map<string, Receipt | null>> {
  const hashes = [...new Set(buys.map((s) => s.sentBehind!.txHash))];
  const receipts = await rpc.everywhere<Receipt>(hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })));
  return new Map(hashes.map((h, i) => [h, receipts[i]!.result ?? null]));
}

/** Each `[address, block]`'s transaction count, the highest any node gives (a node behind gives less). Throws when none answers one. */
async function highestCounts(rpc: ExecutedChain['rpc'], asked: [string, string][]): Promise<bigint[]> {
  if (asked.length === 0) return [];
  const each = await rpc.fromEach<string>(asked.map(([address, block]) => ({ method: 'eth_getTransactionCount', params: [address, block] })));
  return asked.map(([address], i) => {
    const counts = each.flatMap((b) => (typeof b[i]?.result === 'string' ? [BigInt(b[i].result)] : []));
    if (counts.length === 0) throw new Error(`no node gave the transaction count of ${address}`);
    return counts.reduce((a, b) => (a > b ? a : b));
  });
}
