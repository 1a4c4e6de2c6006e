import { getAmountOut, getPairCall, getReservesCall, holdsLiquidity, orientReserves, pairFromResult, quoteTokenOut, stableReserves } from './uniswap-v2.js';

const word = (n: bigint) => n.toString(16).padStart(64, '0');
const reserves = (r0: bigint, r1: bigint) => `0x${word(r0)}${word(r1)}${word(1_700_000_000n)}`;
const LOW = '0x1000000000000000000000000000000000000001';
const HIGH = '0xf000000000000000000000000000000000000002';

describe('Uniswap-V2 pairs', () => {
  it('orients reserves by address order: token0 is the lower address', () => {
    expect(orientReserves(reserves(7n, 9n), LOW, HIGH)).toEqual({ reserveToken: 7n, reserveNative: 9n });
    expect(orientReserves(reserves(7n, 9n), HIGH, LOW)).toEqual({ reserveToken: 9n, reserveNative: 7n });
    expect(orientReserves(reserves(7n, 9n), HIGH.toUpperCase().replace('0X', '0x'), LOW)).toEqual({ reserveToken: 9n, reserveNative: 7n });
  });

  it('tells a pair with liquidity on both sides from one with a side empty', () => {
    expect(holdsLiquidity(reserves(1n, 1n))).toBe(true);
    expect(holdsLiquidity(reserves(0n, 5n))).toBe(false);
    expect(holdsLiquidity(reserves(5n, 0n))).toBe(false);
    expect(holdsLiquidity('0x')).toBe(false);
  });

  it('reads the stable pair by its layout', () => {
    expect(stableReserves(reserves(3n, 4n), { nativeIsToken0: true, decimals: 6 })).toEqual({ reserveNative: 3n, reserveStable: 4n });
    expect(stableReserves(reserves(3n, 4n), { nativeIsToken0: false, decimals: 6 })).toEqual({ reserveNative: 4n, reserveStable: 3n });
  });

  it('reads getPair answers: an address, the zero address or no code at all', () => {
    expect(pairFromResult(`0x${'0'.repeat(24)}${'AB'.repeat(20)}`)).toBe(`0x${'ab'.repeat(20)}`);
    expect(pairFromResult(`0x${'0'.repeat(64)}`)).toBeNull();
    expect(pairFromResult('0x')).toBeNull();
  });

  it('encodes getPair(token, wrappedNative) and getReserves at a block', () => {
    expect(getPairCall('0xfac', LOW, HIGH, '0x10')).toEqual({
      method: 'eth_call',
      params: [{ to: '0xfac', data: `0xe6a43905${LOW.slice(2).padStart(64, '0')}${HIGH.slice(2).padStart(64, '0')}` }, '0x10'],
    });
    expect(getReservesCall('0xpair', 255n)).toEqual({ method: 'eth_call', params: [{ to: '0xpair', data: '0x0902f1ac' }, '0xff'] });
  });

  it('quotes with the 0.3 % fee, and 0 for an empty side', () => {
    const ETH = 10n ** 18n;
    expect(quoteTokenOut({ reserveNative: 10n * ETH, reserveToken: 1_000_000n * ETH }, ETH)).toBe(getAmountOut(ETH, 10n * ETH, 1_000_000n * ETH));
    expect(getAmountOut(1000n, 1000n, 1000n)).toBe((1000n * 997n * 1000n) / (1000n * 1000n + 1000n * 997n));
    expect(quoteTokenOut({ reserveNative: 0n, reserveToken: 5n }, ETH)).toBe(0n);
  });
});
