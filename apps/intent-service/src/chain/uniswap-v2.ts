import { abiWord, DECIMALS, GET_RESERVES, TOKEN0, TOKEN1 } from '@tradeinfra/contracts';
import { type ChainRpc, type RpcCall } from './chain-rpc.js';

/** Uniswap V2's quote: what `amountIn` buys from a pool with these reserves (0.3 % fee). */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const withFee = amountIn * 997n;
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
}

/** The factory's `getPair(address,address)` selector. */
const GET_PAIR = '0xe6a43905';
export const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

/** A pair's reserves, by side. */
export interface Reserves {
  reserveNative: bigint;
  reserveToken: bigint;
}

/** Which side of a native/stable pair is the native token, and the stable's decimals. */
export interface StableLayout {
  nativeIsToken0: boolean;
  decimals: number;
}

const hexQ = (n: bigint) => `0x${n.toString(16)}`;
const word = (address: string) => address.slice(2).toLowerCase().padStart(64, '0');
/** The address in the last 20 bytes of an ABI word (lowercase). */
export const addressOf = (w: string): string => `0x${w.slice(-40)}`.toLowerCase();

/** `pair.getReserves()` at a block (a number or tag). */
export function getReservesCall(pair: string, at: bigint | string): RpcCall {
  return { method: 'eth_call', params: [{ to: pair, data: GET_RESERVES }, typeof at === 'bigint' ? hexQ(at) : at] };
}

/** `factory.getPair(token, wrappedNative)` at a block. */
export function getPairCall(factory: string, token: string, wrappedNative: string, at: string): RpcCall {
  return { method: 'eth_call', params: [{ to: factory, data: `${GET_PAIR}${word(token)}${word(wrappedNative)}` }, at] };
}

/** The pair address `getPair` answered, or null (no pair; no factory code answers "0x"). */
export function pairFromResult(result: string | null | undefined): string | null {
  const pair = result && result.length >= 66 ? addressOf(result) : ZERO_ADDRESS;
  return pair === ZERO_ADDRESS ? null : pair;
}

/** A token/wrapped-native pair's `getReserves()` answer, by side (token0 is the lower address). */
export function orientReserves(getReserves: string, token: string, wrappedNative: string): Reserves {
  const tokenIsToken0 = token.toLowerCase() < wrappedNative.toLowerCase();
  const [r0, r1] = [abiWord(getReserves, 0), abiWord(getReserves, 1)];
  return tokenIsToken0 ? { reserveToken: r0, reserveNative: r1 } : { reserveToken: r1, reserveNative: r0 };
}

/** Whether a `getReserves()` answer shows liquidity on both sides. */
export function holdsLiquidity(getReserves: string): boolean {
  return BigInt(`0x${getReserves.slice(2, 66) || '0'}`) > 0n && BigInt(`0x${getReserves.slice(66, 130) || '0'}`) > 0n;
}

/** A native/stable pair's reserves by side. */
export function stableReserves(getReserves: string, layout: StableLayout): { reserveNative: bigint; reserveStable: bigint } {
  const [s0, s1] = [abiWord(getReserves, 0), abiWord(getReserves, 1)];
  return { reserveNative: layout.nativeIsToken0 ? s0 : s1, reserveStable: layout.nativeIsToken0 ? s1 : s0 };
}

/** The quote out of a pool after `amountIn` native: what a Uniswap-V2 pair gives (0.3 % fee). */
export function quoteTokenOut(pool: Reserves, amountIn: bigint): bigint {
  return getAmountOut(amountIn, pool.reserveNative, pool.reserveToken);
}

/**
 * Reads a native/stable pair's layout: null (with `onMismatch` called) when neither side is the
 * wrapped native token.
 */
export async function readStableLayout(rpc: ChainRpc, pair: string, wrappedNative: string, onMismatch: () => void): Promise<StableLayout | null> {
  const [t0, t1] = await rpc.all<string>([
    { method: 'eth_call', params: [{ to: pair, data: TOKEN0 }, 'latest'] },
    { method: 'eth_call', params: [{ to: pair, data: TOKEN1 }, 'latest'] },
  ]);
  const [token0, token1] = [addressOf(t0!), addressOf(t1!)];
  const nativeIsToken0 = token0 === wrappedNative;
  if (!nativeIsToken0 && token1 !== wrappedNative) {
    onMismatch();
    return null;
  }
  const decimals = await rpc.call<string>('eth_call', [{ to: nativeIsToken0 ? token1 : token0, data: DECIMALS }, 'latest']);
  return { nativeIsToken0, decimals: Number(BigInt(decimals)) };
}
