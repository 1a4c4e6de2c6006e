import { FailureReason, type IntentStatusData } from '@tradeinfra/contracts';
import { getAmountOut } from '../chain/uniswap-v2.js';

/** The failure reasons (defined once, in the contracts). */
export { FailureReason };

/** Fractions are compared exactly: scaled to 18 decimals. */
export const FRACTION_SCALE = 10n ** 18n;

/** A tax limit as stored (decimal text such as "0.05", or "1e-7") → parts per 10^18, exactly (truncated below 10^-18). */
export function fractionToScaled(value: string | number): bigint {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!match) throw new RangeError(`not a decimal fraction: ${text}`);
  const digits = `${match[1]}${match[2] ?? ''}`;
  const exponent = Number(match[3] ?? 0) - (match[2]?.length ?? 0) + 18;
  if (exponent >= 0) return BigInt(digits) * 10n ** BigInt(exponent);
  return -exponent > digits.length ? 0n : BigInt(digits.slice(0, digits.length + exponent) || '0');
}

/** `lost / expected` in parts per 10^18, rounded up (a measured tax never reads lower than it is). */
export function lossScaled(expected: bigint, got: bigint): bigint {
  if (expected <= 0n) return 0n;
  const lost = expected > got ? expected - got : 0n;
  return (lost * FRACTION_SCALE + expected - 1n) / expected;
}

/** What the simulated buy and sell of the launch state showed about the token. */
export interface TokenProbe {
  /** Buy tax, parts per 10^18. */
  buyTax: bigint;
  /** Sell tax, parts per 10^18; null when selling reverted (a honeypot). */
  sellTax: bigint | null;
  /** Gas the simulated buy used. */
  buyGas: bigint;
}

/** The pool at the state the buys run on: native and token reserves, and the pool's worth. */
export interface PoolState {
  reserveNative: bigint;
  reserveToken: bigint;
  /** Value of both sides in cents (2 × native reserve at the stable pair's price); null: no price source. */
  liquidityCents: bigint | null;
}

/** The intent fields the checks read (wei amounts as decimal strings, as stored). */
export interface CheckedIntent {
  id: string;
  wallet: string;
  buyAmount: string;
  bribe: string;
  minIn: string | null;
  minOut: string | null;
  minLiquidity: string | null;
  maxBuyTax: string | null;
  maxSellTax: string | null;
  maxSlippageBps: number | null;
  feeBps: number | null;
}

export interface Quote {
  /** Native sent into the swap: buyAmount minus the fee. */
  swapValue: bigint;
  fee: bigint;
  /** Tokens the pool sends for swapValue (before any token tax). */
  grossOut: bigint;
  /** Tokens the wallet is expected to receive (after the buy tax), given every earlier buy of the batch. */
  expectedOut: bigint;
  /** The router's guard: the least the wallet must receive or the buy reverts. */
  amountOutMin: bigint;
}

/**
 * A failed check carries the values it measured, as the notification's `data` and the intent's
 * `statusData` show them (wei, token and cent amounts as decimal strings; taxes as fractions;
 * basis points as integers).
 */
export type CheckResult = { ok: true; quote: Quote } | { ok: false; reason: FailureReason; detail: string; data: IntentStatusData };

/**
 * Checks one intent against the pool as the earlier (higher-bribe) buys of the batch leave it,
 * and prices its swap. `pool` is advanced by the caller when the intent goes ahead.
 */
export function checkIntent(
  intent: CheckedIntent,
  launchPool: PoolState,
  pool: { reserveNative: bigint; reserveToken: bigint },
  probe: TokenProbe,
): CheckResult {
  const fail = (reason: FailureReason, detail: string, data: IntentStatusData = {}): CheckResult => ({ ok: false, reason, detail, data });
  const buyAmount = BigInt(intent.buyAmount);
  const fee = intent.feeBps ? (buyAmount * BigInt(intent.feeBps)) / 10_000n : 0n;
  const swapValue = buyAmount - fee;
  if (swapValue <= 0n) return fail(FailureReason.NothingToBuy, 'buyAmount after the fee is 0', { buyAmount: String(buyAmount), fee: String(fee) });
  if (intent.minIn !== null && swapValue < BigInt(intent.minIn)) {
    return fail(FailureReason.MinInNotMet, `${swapValue} wei would go into the swap, below minIn ${intent.minIn}`, {
      minIn: intent.minIn,
      actual: String(swapValue),
    });
  }
  if (intent.minLiquidity !== null) {
    if (launchPool.liquidityCents === null) {
      return fail(FailureReason.LiquidityUnknown, 'no stable pair is configured to price the liquidity', { minLiquidity: intent.minLiquidity });
    }
    if (launchPool.liquidityCents < BigInt(intent.minLiquidity)) {
      return fail(FailureReason.LiquidityTooLow, `pool liquidity is ${launchPool.liquidityCents} cents, below minLiquidity ${intent.minLiquidity}`, {
        minLiquidity: intent.minLiquidity,
        actual: String(launchPool.liquidityCents),
      });
    }
  }
  if (intent.maxBuyTax !== null && probe.buyTax > fractionToScaled(intent.maxBuyTax)) {
    return fail(FailureReason.BuyTaxTooHigh, `buy tax ${formatFraction(probe.buyTax)} above maxBuyTax ${intent.maxBuyTax}`, {
      max: Number(intent.maxBuyTax),
      actual: fractionNumber(probe.buyTax),
    });
  }
  const maxSellTax = intent.maxSellTax === null ? null : fractionToScaled(intent.maxSellTax);
  if (probe.sellTax === null && maxSellTax !== FRACTION_SCALE) {
    return fail(FailureReason.Honeypot, 'selling the token reverted');
  }
  if (maxSellTax !== null && probe.sellTax !== null && probe.sellTax > maxSellTax) {
    return fail(FailureReason.SellTaxTooHigh, `sell tax ${formatFraction(probe.sellTax)} above maxSellTax ${intent.maxSellTax}`, {
      max: Number(intent.maxSellTax),
      actual: fractionNumber(probe.sellTax),
    });
  }
  const grossOut = getAmountOut(swapValue, pool.reserveNative, pool.reserveToken);
  const expectedOut = (grossOut * (FRACTION_SCALE - probe.buyTax)) / FRACTION_SCALE;
  if (intent.minOut !== null && expectedOut < BigInt(intent.minOut)) {
    return fail(FailureReason.MinOutNotMet, `the pool quotes ${expectedOut} tokens, below minOut ${intent.minOut}`, {
      minOut: intent.minOut,
      quoted: String(expectedOut),
    });
  }
  let amountOutMin = intent.minOut === null ? 0n : BigInt(intent.minOut);
  if (intent.maxSlippageBps !== null) {
    const bps = BigInt(intent.maxSlippageBps);
    // Against the launch price: what swapValue buys at the pool's spot price before any buy.
    const atSpot = (swapValue * launchPool.reserveToken) / launchPool.reserveNative;
    const spotAfterTax = (atSpot * (FRACTION_SCALE - probe.buyTax)) / FRACTION_SCALE;
    if (spotAfterTax > 0n && (spotAfterTax - expectedOut) * 10_000n > spotAfterTax * bps) {
      // Rounded up: the figure shown is never at or below a limit it exceeded.
      const slippage = ((spotAfterTax - expectedOut) * 10_000n + spotAfterTax - 1n) / spotAfterTax;
      return fail(FailureReason.SlippageTooHigh, `the buy would move the price ${slippage} bps, above maxSlippageBps ${bps}`, {
        maxSlippageBps: intent.maxSlippageBps,
        actual: Number(slippage),
      });
    }
    const guard = (expectedOut * (10_000n - bps)) / 10_000n;
    if (guard > amountOutMin) amountOutMin = guard;
  }
  return { ok: true, quote: { swapValue, fee, grossOut, expectedOut, amountOutMin } };
}

/** Parts per 10^18 → a JSON number (every digit down to 10^-18 given to the conversion). */
export function fractionNumber(scaled: bigint): number {
  const whole = scaled / FRACTION_SCALE;
  const frac = (scaled % FRACTION_SCALE).toString().padStart(18, '0').replace(/0+$/, '');
  return Number(frac ? `${whole}.${frac}` : `${whole}`);
}

/** Parts per 10^18 → a short decimal (for messages). */
export function formatFraction(scaled: bigint): string {
  const whole = scaled / FRACTION_SCALE;
  const frac = (scaled % FRACTION_SCALE).toString().padStart(18, '0').replace(/0+$/, '').slice(0, 6);
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/**
 * Cents per native token from a stable pair's reserves: `stable / native`, scaled by the stable's
 * decimals. Returns the pool's worth in cents for `reserveNative` on the other side (×2: both sides).
 */
export function liquidityInCents(reserveNative: bigint, stable: { reserveNative: bigint; reserveStable: bigint; stableDecimals: number }): bigint | null {
  if (stable.reserveNative <= 0n) return null;
  return (2n * reserveNative * stable.reserveStable * 100n) / (stable.reserveNative * 10n ** BigInt(stable.stableDecimals));
}
