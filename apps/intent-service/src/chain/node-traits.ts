import { type WatchedChain } from '../config/env.js';
import { RpcUnavailable, type ChainRpc } from './chain-rpc.js';

/** How a node is best asked. */
export interface NodeTraits {
  /** `block`: one pending block and each sender's latest count, instead of each sender's pending count. */
  pendingNonces: 'sender' | 'block';
  /** The node handles a batch's calls in their order: a round's buys go in one batch. */
  orderedBatches: boolean;
}

/**
 * A chain's node traits, its settings' `auto` resolved by asking the node once what it is
 * (`web3_clientVersion`): hardhat rebuilds its pending block on every `pending` read, so there one
 * pending block is read instead of each sender's pending count; geth runs a batch's calls in their
 * order. A node that says neither: each sender's pending count, buys sent one by one.
 */
export function nodeTraits(settings: Pick<WatchedChain, 'pendingNonces' | 'orderedBatches'>, rpc: Pick<ChainRpc, 'call'>): () => Promise<NodeTraits> {
  const resolve = (version: string): NodeTraits => ({
    pendingNonces: settings.pendingNonces === 'auto' ? (/^hardhat/i.test(version) ? 'block' : 'sender') : settings.pendingNonces,
    orderedBatches: settings.orderedBatches === 'auto' ? /^geth\//i.test(version) : settings.orderedBatches === 'yes',
  });
  if (settings.pendingNonces !== 'auto' && settings.orderedBatches !== 'auto') {
    const fixed = resolve('');
    return () => Promise.resolve(fixed);
  }
  let resolved: Promise<NodeTraits> | null = null;
  return () =>
    (resolved ??= rpc.call<string>('web3_clientVersion', []).then(resolve, (err: unknown) => {
      // A node that will not say what it is gets the safe ways; one that is down is asked again next round.
      if (!(err instanceof RpcUnavailable)) return resolve('');
      resolved = null;
      throw err;
    }));
}
