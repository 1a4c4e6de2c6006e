import { id } from 'ethers';
import type { LaunchWatch } from './candidates.js';

export interface LogLike {
  address: string;
  topics: string[];
  data: string;
}

/** A watched token's pool getting its first liquidity. */
export interface FirstLiquidity {
  token: string;
  pair: string;
  /** The pool's other token (the chain's wrapped native token or a stable coin). */
  quote: string;
  /** Reserves as the liquidity leaves them: the pair's last `Sync` in the transaction. */
  tokenReserve: bigint;
  quoteReserve: bigint;
}

const TOPIC = {
  pairCreated: id('PairCreated(address,address,address,uint256)'),
  mint: id('Mint(address,uint256,uint256)'),
  sync: id('Sync(uint112,uint112)'),
  transfer: id('Transfer(address,address,uint256)'),
};
/** Uniswap V2 locks this much of the first liquidity forever, minted to address(0) (or 0xdead in some forks). */
const MINIMUM_LIQUIDITY = 1000n;
const ZERO = `0x${'0'.repeat(40)}`;
const BURN_ADDRESSES = new Set([ZERO, `0x${'0'.repeat(36)}dead`]);

const address = (word: string) => `0x${word.slice(-40)}`.toLowerCase();
const word = (data: string, i: number) => BigInt(`0x${data.slice(2 + 64 * i, 2 + 64 * (i + 1)) || '0'}`);

/**
 * The first liquidity a transaction's logs give watched tokens (pure: logs in, launches out). A
 * pool's first `Mint` is the one that also mints MINIMUM_LIQUIDITY to the burn address: that
 * happens exactly once in a V2 pair's life, so a later top-up is never taken for a launch. The
 * pair's tokens come from a `PairCreated` of the watched factory in the same logs, or from
 * `knownPairs` (pairs created earlier, before any liquidity).
 */
export function firstLiquidity(
  logs: readonly LogLike[],
  watch: Pick<LaunchWatch, 'factory' | 'tokens'>,
  knownPairs: ReadonlyMap<string, readonly [token0: string, token1: string]> = new Map(),
): FirstLiquidity[] {
  const pairs = new Map(knownPairs);
  for (const log of logs) {
    if (log.address.toLowerCase() === watch.factory && log.topics[0] === TOPIC.pairCreated && log.topics.length === 3) {
      pairs.set(address(log.data.slice(0, 66)), [address(log.topics[1]!), address(log.topics[2]!)]);
    }
  }
  const seeded = new Set<string>();
  const minted = new Set<string>();
  const reserves = new Map<string, [bigint, bigint]>();
  for (const log of logs) {
    const pair = log.address.toLowerCase();
    if (!pairs.has(pair)) continue;
    const topic = log.topics[0];
    if (topic === TOPIC.transfer && log.topics.length === 3) {
      // A mint (from address(0)) of exactly MINIMUM_LIQUIDITY to the burn address.
      if (address(log.topics[1]!) === ZERO && BURN_ADDRESSES.has(address(log.topics[2]!)) && word(log.data, 0) === MINIMUM_LIQUIDITY) seeded.add(pair);
    } else if (topic === TOPIC.mint) minted.add(pair);
    else if (topic === TOPIC.sync) reserves.set(pair, [word(log.data, 0), word(log.data, 1)]);
  }
  const launches: FirstLiquidity[] = [];
  for (const pair of seeded) {
    const [token0, token1] = pairs.get(pair)!;
    const [reserve0, reserve1] = reserves.get(pair) ?? [0n, 0n];
    if (!minted.has(pair) || reserve0 === 0n || reserve1 === 0n) continue;
    if (watch.tokens.has(token0)) launches.push({ token: token0, pair, quote: token1, tokenReserve: reserve0, quoteReserve: reserve1 });
    else if (watch.tokens.has(token1)) launches.push({ token: token1, pair, quote: token0, tokenReserve: reserve1, quoteReserve: reserve0 });
  }
  return launches;
}
