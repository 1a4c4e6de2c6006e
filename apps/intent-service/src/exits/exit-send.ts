import { type Submission } from '../execution/submitter.js';
import { type ExitChain } from './exit-chain.js';

/** A signed sell ready to go, behind its approve. */
export interface OutgoingSell {
  id: string;
  approve: string | null;
  sell: { raw: string; hash: string };
}

/**
 * Step: hands sells over for `target`; answers the refused ones with why. With relays: one
 * JSON-RPC batch of bundles (`[approve, sell]` each), or behind a rug `[sells…, rug]` for
 * `target` and a backup for the block after. Without: the node, in order.
 */
export async function sendSells(chain: ExitChain, sells: OutgoingSell[], target: bigint, rug: string | null = null): Promise<[string, string][]> {
  if (sells.length === 0) return [];
  const pair = (s: OutgoingSell) => [...(s.approve ? [s.approve] : []), s.sell.raw];
  if (chain.relays && chain.submitter.kind === 'bundle') {
    if (rug !== null) {
      const txs = [...sells.flatMap(pair), rug];
      const answers = await chain.relays.send([
        { txs, blockNumber: target },
        { txs, blockNumber: target + 1n },
      ]);
      if (answers.some((a) => a === null)) return [];
      return sells.map((s) => [s.id, answers[0] ?? 'no relay accepted the bundle']);
    }
    const answers = await chain.relays.send(sells.map((s) => ({ txs: pair(s), blockNumber: target })));
    return sells.flatMap((s, i) => (answers[i] === null ? [] : [[s.id, answers[i] ?? 'no relay accepted the bundle'] as [string, string]]));
  }
  const submissions: Submission[] = sells.flatMap((s) => [
    ...(s.approve ? [{ intentId: `${s.id}:approve`, raw: s.approve, hash: '' }] : []),
    { intentId: s.id, raw: s.sell.raw, hash: s.sell.hash },
  ]);
  const outcome = await chain.submitter.submit(submissions, target);
  return sells.flatMap((s) => {
    const why = outcome.get(s.id);
    return why ? [[s.id, why] as [string, string]] : [];
  });
}
