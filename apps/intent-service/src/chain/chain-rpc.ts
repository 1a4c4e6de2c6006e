import type { ChainRpc } from '@tradeinfra/service-kit';
import { type ChainNodes } from '../common/chain-nodes.js';

export { ChainRpc, RpcUnavailable, type RpcCall, type RpcReplyItem } from '@tradeinfra/service-kit';

/** Nest token of the launch watcher's node clients (`Map<chainId, ChainRpc>`): injected, so tests can swap them. */
export const WATCHED_CHAIN_RPCS = Symbol('WATCHED_CHAIN_RPCS');

/** The watched chains' clients (the production wiring: the replica's shared ones). */
export function watchedChainRpcs(nodes: ChainNodes): Map<number, ChainRpc> {
  return nodes.all();
}
