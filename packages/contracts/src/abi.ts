/**
 * The few contract calls the services make by hand (Uniswap V2 pairs, ERC-20 metadata), as
 * 4-byte selectors, and reading a word of ABI-encoded return data.
 */

/** `token0()` of a Uniswap V2 pair. */
export const TOKEN0 = '0x0dfe1681';
/** `token1()` of a Uniswap V2 pair. */
export const TOKEN1 = '0xd21220a7';
/** `getReserves()` of a Uniswap V2 pair: (reserve0, reserve1, blockTimestampLast). */
export const GET_RESERVES = '0x0902f1ac';
/** `decimals()` of an ERC-20 token. */
export const DECIMALS = '0x313ce567';

/** The `i`-th 32-byte word of ABI-encoded data (`0x…`) as an unsigned integer; 0 past the end. */
export function abiWord(hex: string, i: number): bigint {
  return BigInt(`0x${hex.slice(2 + 64 * i, 2 + 64 * (i + 1)) || '0'}`);
}
