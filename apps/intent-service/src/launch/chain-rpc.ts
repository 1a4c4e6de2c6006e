import { ChainRpc } from '@tradeinfra/service-kit';
import { type WatchedChain } from '../config/env.js';

export { ChainRpc, RpcUnavailable, type RpcCall, type RpcReplyItem } from '@tradeinfra/service-kit';

/** Nest token of the launch watcher's node clients (`Map<chainId, ChainRpc>`): injected, so tests can swap them. */
export const WATCHED_CHAIN_RPCS = Symbol('WATCHED_CHAIN_RPCS');

/** One node client per watched chain (the production wiring). */
export function watchedChainRpcs(chains: WatchedChain[]): Map<number, ChainRpc> {
  return new Map(chains.map((c) => [c.chainId, new ChainRpc(c.rpcUrl)]));
}
