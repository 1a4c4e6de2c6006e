import { type WatchedChain } from '../config/env.js';
import { addressOf, getPairCall, getReservesCall, holdsLiquidity, pairFromResult } from '../chain/uniswap-v2.js';
import { NodeBehind } from '@tradeinfra/service-kit';
import { type ChainRpc } from '../chain/chain-rpc.js';

/** keccak256("PairCreated(address,address,address,uint256)") and keccak256("Mint(address,uint256,uint256)"). */
export const PAIR_CREATED_TOPIC = '0x0d3648bd0f6ba80134a33ba9275ac585d9d315f0ad8355cddefde31afa28d0e9';
export const MINT_TOPIC = '0x4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f';

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  logIndex: string;
  transactionHash?: string;
}

export interface Launch {
  token: string;
  pair: string;
  blockNumber: bigint;
  blockHash: string;
  /** The transaction of the first `Mint`; null for a pair found already liquid. */
  txHash: string | null;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** The (token, pair) of each `PairCreated` log of a token with the wrapped native token (lowercase). Pure. */
export function createdPairs(logs: RpcLog[], wrappedNative: string): { token: string; pair: string }[] {
  return logs.flatMap((log) => {
    const [t0, t1] = [addressOf(log.topics[1]!), addressOf(log.topics[2]!)];
    const token = t0 === wrappedNative ? t1 : t1 === wrappedNative ? t0 : null;
    return token ? [{ token, pair: addressOf(log.data.slice(2, 66)) }] : [];
  });
}

/**
 * The launches the `Mint` logs show: per watched pair (`pairs`: pair → token), the first mint in
 * block and log order, unless `launched` already holds the pair (it held liquidity before). Pure.
 */
export function launchesFromMints(mints: RpcLog[], pairs: Map<string, string>, launched: Map<string, Launch> = new Map()): Launch[] {
  const launches = new Map(launched);
  const ordered = [...mints].sort((a, b) => Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) || Number(BigInt(a.logIndex) - BigInt(b.logIndex)));
  for (const log of ordered) {
    const pair = log.address.toLowerCase();
    if (launches.has(pair) || !pairs.has(pair)) continue;
    launches.set(pair, {
      token: pairs.get(pair)!,
      pair,
      blockNumber: BigInt(log.blockNumber),
      blockHash: log.blockHash,
      txHash: log.transactionHash?.toLowerCase() ?? null,
    });
  }
  return [...launches.values()];
}

/**
 * Finds the first liquidity of watched tokens in a block range, on a Uniswap-V2-style factory:
 * the token's pair with the wrapped native token (`PairCreated`, or a pair created before), then
 * the pair's first `Mint` (a pair that already holds reserves counts as launched before the range).
 * The node is passed in per call; the pairs it has seen are remembered per chain.
 */
export class LaunchDetector {
  /**
   * Per chain, token → its pair (or null: none when first looked up). A token is looked up
   * once; pairs created later arrive through PairCreated logs, and pair addresses are
   * deterministic (CREATE2), so a reorg cannot make a remembered one wrong.
   */
  private readonly pairOf = new Map<number, Map<string, string | null>>();

  /** Forgets the chain's pairs (its blocks were abandoned: a reset chain may have other pairs, made at other times). */
  forget(chainId: number): void {
    this.pairOf.delete(chainId);
  }

  /** Launches of `tokens` seen in blocks from..to. */
  async detect(
    chain: Pick<WatchedChain, 'chainId' | 'factory' | 'wrappedNative'>,
    rpc: ChainRpc,
    tokens: Set<string>,
    from: bigint,
    to: bigint,
  ): Promise<Launch[]> {
    const pairs = new Map<string, string>(); // pair → token
    const known = this.pairOf.get(chain.chainId) ?? new Map<string, string | null>();
    this.pairOf.set(chain.chainId, known);
    const created = await rpc.call<RpcLog[]>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: chain.factory, topics: [PAIR_CREATED_TOPIC] }]);
    for (const { token, pair } of createdPairs(created, chain.wrappedNative)) {
      known.set(token, pair);
      if (tokens.has(token)) pairs.set(pair, token);
    }
    // Pairs created before this range (the intent may have been registered after the pair).
    const before = hex(from - 1n);
    const existing = new Set<string>();
    for (const token of tokens) {
      if ([...pairs.values()].includes(token)) continue;
      let pair = known.get(token);
      if (pair === undefined) {
        pair = pairFromResult(await rpc.call<string>('eth_call', getPairCall(chain.factory, token, chain.wrappedNative, before).params));
        known.set(token, pair);
      }
      // A pair seen before (maybe before any intent wanted the token): check its reserves.
      if (pair) {
        pairs.set(pair, token);
        existing.add(pair);
      }
    }
    if (pairs.size === 0) return [];
    const launched = new Map<string, Launch>();
    // A pair that already held liquidity before the range launched before we looked.
    for (const pair of existing) {
      const reserves = await rpc.call<string>('eth_call', getReservesCall(pair, before).params);
      if (holdsLiquidity(reserves)) {
        const block = await rpc.call<{ hash: string } | null>('eth_getBlockByNumber', [before, false]);
        if (!block) throw new NodeBehind(`the node has no block ${from - 1n} yet`);
        launched.set(pair, { token: pairs.get(pair)!, pair, blockNumber: from - 1n, blockHash: block.hash, txHash: null });
      }
    }
    const mints = await rpc.call<RpcLog[]>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: [...pairs.keys()], topics: [MINT_TOPIC] }]);
    return launchesFromMints(mints, pairs, launched);
  }
}
