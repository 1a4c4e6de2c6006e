import { type WatchedChain } from '../config/env.js';
import { ChainRpc, RpcUnavailable } from '../launch/chain-rpc.js';
import { DevSigner } from './signer.js';
import { BundleSubmitter, RpcSubmitter, type Submitter } from './submitter.js';

/** A chain's executor contract and the relayer that sends wallet intents' buys to it. */
export interface WalletExecution {
  executor: string;
  relayer: DevSigner;
  relayerAddress: string;
}

/** The I/O clients of one executed chain (a chain with a router). */
export interface ExecutedChain {
  config: WatchedChain & { router: string };
  rpc: ChainRpc;
  submitter: Submitter;
  devSigner: DevSigner;
  /** Wallet intents' execution: null where EXECUTOR_<id> is not set. */
  wallets: WalletExecution | null;
  /** What this chain's node does (PENDING_NONCES_<id>, ORDERED_BATCHES_<id>; `auto` resolved once). */
  traits: () => Promise<NodeTraits>;
}

/** How a node is best asked. */
export interface NodeTraits {
  /** `block`: one pending block and each sender's latest count, instead of each sender's pending count. */
  pendingNonces: 'sender' | 'block';
  /** The node handles a batch's calls in their order: a round's buys go in one batch. */
  orderedBatches: boolean;
}

/** Nest token of the executed chains' clients (`ExecutedChain[]`): injected, so tests can swap them. */
export const EXECUTED_CHAINS = Symbol('EXECUTED_CHAINS');

/** The clients of every watched chain that has a router (the production wiring), on the chains' nodes (`rpcs`, by chain id). */
export function executedChains(chains: WatchedChain[], relayAuthKey: string | null, rpcs: Map<number, ChainRpc>): ExecutedChain[] {
  return chains.flatMap((config) => {
    if (!config.router) return [];
    const rpc = rpcs.get(config.chainId) ?? new ChainRpc(config.rpcUrls);
    const traits = nodeTraits(config, rpc);
    return [
      {
        config: { ...config, router: config.router },
        rpc,
        submitter: config.relays.length > 0 ? new BundleSubmitter(config.relays, relayAuthKey) : new RpcSubmitter(rpc, traits),
        devSigner: new DevSigner(config.devSignerKeys),
        wallets: config.executor && config.relayerKey ? walletExecution(config.executor, config.relayerKey) : null,
        traits,
      },
    ];
  });
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

function walletExecution(executor: string, relayerKey: string): WalletExecution {
  const relayer = new DevSigner([relayerKey]);
  return { executor, relayer, relayerAddress: relayer.addresses()[0]! };
}
