import { type WatchedChain } from '../config/env.js';
import { ChainRpc } from '../chain/chain-rpc.js';
import { nodeTraits, type NodeTraits } from '../chain/node-traits.js';
import { type WsSender } from '../chain/ws-sender.js';
import { DevSigner } from './signed-buy.js';
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

/** Nest token of the executed chains' clients (`ExecutedChain[]`): injected, so tests can swap them. */
export const EXECUTED_CHAINS = Symbol('EXECUTED_CHAINS');

/** The clients of every watched chain that has a router (the production wiring), on the chains' nodes (`rpcs`, by chain id). */
export function executedChains(
  chains: WatchedChain[],
  relayAuthKey: string | null,
  rpcs: Map<number, ChainRpc>,
  senders: (chainId: number) => WsSender | null = () => null,
): ExecutedChain[] {
  return chains.flatMap((config) => {
    if (!config.router) return [];
    const rpc = rpcs.get(config.chainId) ?? new ChainRpc(config.rpcUrls);
    const traits = nodeTraits(config, rpc);
    return [
      {
        config: { ...config, router: config.router },
        rpc,
        submitter: config.relays.length > 0 ? new BundleSubmitter(config.relays, relayAuthKey) : new RpcSubmitter(rpc, traits, senders(config.chainId)),
        devSigner: new DevSigner(config.devSignerKeys),
        wallets: config.executor && config.relayerKey ? walletExecution(config.executor, config.relayerKey) : null,
        traits,
      },
    ];
  });
}

function walletExecution(executor: string, relayerKey: string): WalletExecution {
  const relayer = new DevSigner([relayerKey]);
  return { executor, relayer, relayerAddress: relayer.addresses()[0]! };
}
