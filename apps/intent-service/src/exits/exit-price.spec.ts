import { scaledRatio } from '@tradeinfra/contracts';
import { firedPriceTrigger, pricePerToken, sellMinOut, sellOut } from './exit-price.js';

const triggers = (t: { takeProfit?: string; stopLoss?: string; trailingStop?: string }) => ({
  takeProfit: t.takeProfit ? scaledRatio(t.takeProfit) : null,
  stopLoss: t.stopLoss ? scaledRatio(t.stopLoss) : null,
  trailingStop: t.trailingStop ? scaledRatio(t.trailingStop) : null,
});

describe('exit prices and triggers', () => {
  it('reads multiples and fractions exactly, refusing more than 18 decimals', () => {
    expect(scaledRatio(2)).toBe(2n * 10n ** 18n);
    expect(scaledRatio(0.1)).toBe(10n ** 17n);
    expect(scaledRatio('1e-7')).toBe(10n ** 11n);
    expect(scaledRatio('1.0000000000000000001')).toBeNull();
  });

  it('prices per whole token from what the amount sells for', () => {
    expect(pricePerToken(5n * 10n ** 17n, 10n ** 18n, 18)).toBe(5n * 10n ** 17n);
    expect(pricePerToken(1_000n, 2_000_000n, 6)).toBe(500n);
    expect(pricePerToken(1n, 0n, 18)).toBe(0n);
  });

  it('takes the measured sell loss off the quote, and moves the pool', () => {
    const pool = { reserveToken: 1_000_000n, reserveNative: 1_000_000n };
    const free = sellOut(pool, 1_000n, 0n);
    expect(free.out).toBe(996n);
    const taxed = sellOut(pool, 1_000n, 10n ** 17n); // 10 %
    expect(taxed.out).toBe(896n);
    expect(taxed.after).toEqual({ reserveToken: 1_001_000n, reserveNative: 1_000_000n - 996n });
  });

  it('fires take-profit at the multiple, stop-loss at the fraction, trailing below the high', () => {
    const entry = 1_000n;
    expect(firedPriceTrigger(triggers({ takeProfit: '2' }), 1_999n, entry, 1_999n)).toBeNull();
    expect(firedPriceTrigger(triggers({ takeProfit: '2' }), 2_000n, entry, 2_000n)).toBe('take_profit');
    expect(firedPriceTrigger(triggers({ stopLoss: '0.5' }), 501n, entry, 1_000n)).toBeNull();
    expect(firedPriceTrigger(triggers({ stopLoss: '0.5' }), 500n, entry, 1_000n)).toBe('stop_loss');
    expect(firedPriceTrigger(triggers({ trailingStop: '0.25' }), 751n, null, 1_000n)).toBeNull();
    expect(firedPriceTrigger(triggers({ trailingStop: '0.25' }), 750n, null, 1_000n)).toBe('trailing_stop');
    // No entry price yet (a followed buy not measured): only the trailing stop can fire.
    expect(firedPriceTrigger(triggers({ takeProfit: '2', stopLoss: '0.5' }), 1n, null, 10n)).toBeNull();
  });

  it('holds a sell to minOut, else to the quote less the slippage', () => {
    expect(sellMinOut(1_000n, 900n, 100)).toBe(900n);
    expect(sellMinOut(1_000n, null, 100)).toBe(990n);
    expect(sellMinOut(1_000n, null, null)).toBe(950n);
  });
});
