import { INTENT_FAILURE_REASONS, STATUS_DATA_KEYS } from '@tradeinfra/contracts';
import { getAmountOut } from '../chain/uniswap-v2.js';
import {
  checkIntent,
  FailureReason,
  FRACTION_SCALE,
  fractionToScaled,
  liquidityInCents,
  lossScaled,
  type CheckedIntent,
  type PoolState,
  type TokenProbe,
} from './checks.js';

const ETH = 10n ** 18n;
const pool: PoolState = { reserveNative: 10n * ETH, reserveToken: 1_000_000n * ETH, liquidityCents: 6_000_000n };
const clean: TokenProbe = { buyTax: 0n, sellTax: 0n, buyGas: 150_000n };
const intent = (over: Partial<CheckedIntent> = {}): CheckedIntent => ({
  id: 'i',
  wallet: '0x0000000000000000000000000000000000000001',
  buyAmount: (ETH / 10n).toString(),
  bribe: '0',
  minIn: null,
  minOut: null,
  minLiquidity: null,
  maxBuyTax: null,
  maxSellTax: null,
  maxSlippageBps: null,
  feeBps: null,
  ...over,
});
const check = (over: Partial<CheckedIntent>, probe = clean, at: { reserveNative: bigint; reserveToken: bigint } = pool) =>
  checkIntent(intent(over), pool, at, probe);
const reason = (r: ReturnType<typeof checkIntent>) => (r.ok ? 'ok' : r.reason);

describe('fractions', () => {
  it.each([
    ['0.05', 5n * 10n ** 16n],
    ['1', FRACTION_SCALE],
    ['0', 0n],
    ['1e-7', 10n ** 11n],
    [0.1, 10n ** 17n],
    ['0.0000001', 10n ** 11n],
    ['1.5e-3', 15n * 10n ** 14n],
    ['0.0000000000000000001', 0n],
  ])('%s → parts per 10^18', (v, want) => expect(fractionToScaled(v)).toBe(want));

  it('measures a loss exactly, rounding up so a tax never reads lower than it is', () => {
    expect(lossScaled(1000n, 900n)).toBe(10n ** 17n);
    expect(lossScaled(3n, 2n)).toBe(333_333_333_333_333_334n);
    expect(lossScaled(1000n, 1000n)).toBe(0n);
    expect(lossScaled(1000n, 2000n)).toBe(0n);
    expect(lossScaled(0n, 0n)).toBe(0n);
  });
});

describe('liquidity in cents', () => {
  it('prices the native side at the stable pair and counts both sides', () => {
    // 3,000 USDC (6 decimals) per ETH; a pool with 1 ETH is worth $6,000 = 600,000 cents.
    const stable = { reserveNative: 100n * ETH, reserveStable: 300_000n * 10n ** 6n, stableDecimals: 6 };
    expect(liquidityInCents(ETH, stable)).toBe(600_000n);
    expect(liquidityInCents(ETH, { ...stable, reserveNative: 0n })).toBeNull();
  });
});

describe('checkIntent', () => {
  it('passes an intent without limits, quoting the pool exactly', () => {
    const r = check({});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.quote.swapValue).toBe(ETH / 10n);
    expect(r.quote.grossOut).toBe(getAmountOut(ETH / 10n, pool.reserveNative, pool.reserveToken));
    expect(r.quote.expectedOut).toBe(r.quote.grossOut);
    expect(r.quote.amountOutMin).toBe(0n);
    expect(r.quote.fee).toBe(0n);
  });

  it('takes the fee out of the buy amount, rounding down', () => {
    const r = check({ buyAmount: '10001', feeBps: 100 });
    expect(r.ok && [r.quote.fee, r.quote.swapValue]).toEqual([100n, 9901n]);
  });

  it.each<[string, Partial<CheckedIntent>, TokenProbe | undefined, FailureReason | 'ok']>([
    ['nothing left after a 100 % fee', { feeBps: 10_000 }, undefined, FailureReason.NothingToBuy],
    ['minIn above the swapped amount', { feeBps: 100, minIn: (ETH / 10n).toString() }, undefined, FailureReason.MinInNotMet],
    ['minIn met exactly', { minIn: (ETH / 10n).toString() }, undefined, 'ok'],
    ['minLiquidity above the pool', { minLiquidity: '6000001' }, undefined, FailureReason.LiquidityTooLow],
    ['minLiquidity met exactly', { minLiquidity: '6000000' }, undefined, 'ok'],
    ['buy tax above the limit', { maxBuyTax: '0.05' }, { ...clean, buyTax: fractionToScaled('0.1') }, FailureReason.BuyTaxTooHigh],
    ['buy tax at the limit', { maxBuyTax: '0.1' }, { ...clean, buyTax: fractionToScaled('0.1') }, 'ok'],
    ['sell tax above the limit', { maxSellTax: '0.05' }, { ...clean, sellTax: fractionToScaled('0.1') }, FailureReason.SellTaxTooHigh],
    ['a sell that reverts', {}, { ...clean, sellTax: null }, FailureReason.Honeypot],
    ['a sell that reverts, with maxSellTax 0.5', { maxSellTax: '0.5' }, { ...clean, sellTax: null }, FailureReason.Honeypot],
    ['a sell that reverts, accepted with maxSellTax 1', { maxSellTax: '1' }, { ...clean, sellTax: null }, 'ok'],
    ['minOut above the quote', { minOut: (10n ** 30n).toString() }, undefined, FailureReason.MinOutNotMet],
    ['a buy moving the price more than allowed', { buyAmount: ETH.toString(), maxSlippageBps: 100 }, undefined, FailureReason.SlippageTooHigh],
    ['a small buy within the slippage', { buyAmount: (ETH / 1000n).toString(), maxSlippageBps: 100 }, undefined, 'ok'],
  ])('%s', (_name, over, probe, want) => {
    const r = check(over, probe);
    expect(reason(r)).toBe(want);
    // The measured values carry exactly the documented keys for the reason.
    if (!r.ok) expect(Object.keys(r.data).sort()).toEqual([...STATUS_DATA_KEYS[r.reason]].sort());
  });

  it('fails without a price source when minLiquidity is set', () => {
    expect(reason(checkIntent(intent({ minLiquidity: '1' }), { ...pool, liquidityCents: null }, pool, clean))).toBe(FailureReason.LiquidityUnknown);
  });

  it('quotes after the earlier buys of the batch: a worse price, and minOut judged on it', () => {
    const first = check({});
    const moved = { reserveNative: pool.reserveNative + 5n * ETH, reserveToken: pool.reserveToken / 2n };
    const later = check({}, clean, moved);
    expect(first.ok && later.ok && later.quote.expectedOut < first.quote.expectedOut).toBe(true);
    const minOut = first.ok ? first.quote.expectedOut.toString() : '0';
    expect(reason(check({ minOut }))).toBe('ok');
    expect(reason(check({ minOut }, clean, moved))).toBe(FailureReason.MinOutNotMet);
  });

  it('guards the buy with amountOutMin: minOut, raised to quote × (1 − slippage) after the buy tax', () => {
    const probe = { ...clean, buyTax: fractionToScaled('0.1') };
    const r = check({ buyAmount: (ETH / 1000n).toString(), maxSlippageBps: 500, minOut: '1' }, probe);
    if (!r.ok) throw new Error(r.detail);
    expect(r.quote.expectedOut).toBe((r.quote.grossOut * 9n) / 10n);
    expect(r.quote.amountOutMin).toBe((r.quote.expectedOut * 9500n) / 10_000n);
    const onlyMinOut = check({ minOut: '12345' });
    expect(onlyMinOut.ok && onlyMinOut.quote.amountOutMin).toBe(12345n);
  });

  it('returns the measured values with each failure: exact decimal strings for amounts, fractions for taxes', () => {
    const data = (r: ReturnType<typeof checkIntent>) => (r.ok ? null : r.data);
    expect(data(check({ feeBps: 10_000 }))).toEqual({ buyAmount: (ETH / 10n).toString(), fee: (ETH / 10n).toString() });
    // 1 % fee: 0.099 ETH goes in, minIn is 0.1 ETH.
    expect(data(check({ feeBps: 100, minIn: (ETH / 10n).toString() }))).toEqual({ minIn: '100000000000000000', actual: '99000000000000000' });
    expect(data(check({ minLiquidity: '6000001' }))).toEqual({ minLiquidity: '6000001', actual: '6000000' });
    expect(data(checkIntent(intent({ minLiquidity: '1' }), { ...pool, liquidityCents: null }, pool, clean))).toEqual({ minLiquidity: '1' });
    expect(data(check({ maxBuyTax: '0.05' }, { ...clean, buyTax: fractionToScaled('0.1') }))).toEqual({ max: 0.05, actual: 0.1 });
    expect(data(check({ maxSellTax: '0.05' }, { ...clean, sellTax: lossScaled(3n, 2n) }))).toEqual({ max: 0.05, actual: 0.333333333333333334 });
    expect(data(check({}, { ...clean, sellTax: null }))).toEqual({});
    const quoted = getAmountOut(ETH / 10n, pool.reserveNative, pool.reserveToken);
    expect(data(check({ minOut: (10n ** 30n).toString() }))).toEqual({ minOut: (10n ** 30n).toString(), quoted: quoted.toString() });
    // 1 ETH into 10 ETH / 1M tokens: the price moves 1 − 1/1.1 × 0.997 ≈ 9.36 %, shown rounded up.
    const atSpot = (ETH * pool.reserveToken) / pool.reserveNative;
    const out = getAmountOut(ETH, pool.reserveNative, pool.reserveToken);
    const bps = ((atSpot - out) * 10_000n + atSpot - 1n) / atSpot;
    expect(data(check({ buyAmount: ETH.toString(), maxSlippageBps: 100 }))).toEqual({ maxSlippageBps: 100, actual: Number(bps) });
    expect(Number(bps)).toBeGreaterThan(100);
  });

  it('every reason is one the contract documents', () => {
    expect(Object.values(FailureReason).sort()).toEqual([...INTENT_FAILURE_REASONS].sort());
  });
});
