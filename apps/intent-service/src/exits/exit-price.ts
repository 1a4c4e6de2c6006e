import { EXIT_RATIO_SCALE, type ExitTrigger } from '@tradeinfra/contracts';
import { getAmountOut, type Reserves } from '../chain/uniswap-v2.js';
import { FRACTION_SCALE } from '../execution/checks.js';

/** An exit's price triggers as exact scaled ratios (× 10^18), null when not set. */
export interface PriceTriggers {
  takeProfit: bigint | null;
  stopLoss: bigint | null;
  trailingStop: bigint | null;
}

/** Wei of native per whole token (10^decimals units) for `out` wei received for `amount` units. Pure. */
export function pricePerToken(out: bigint, amount: bigint, decimals: number): bigint {
  return amount <= 0n ? 0n : (out * 10n ** BigInt(decimals)) / amount;
}

/**
 * What selling `amount` gives from `pool` with the token's measured sell loss (parts per 10^18
 * of the tax-free quote, from a simulated sale), and the pool after it. Pure.
 */
export function sellOut(pool: Reserves, amount: bigint, sellLoss: bigint): { out: bigint; after: Reserves } {
  const quoted = getAmountOut(amount, pool.reserveToken, pool.reserveNative);
  const out = (quoted * (FRACTION_SCALE - sellLoss)) / FRACTION_SCALE;
  return { out, after: { reserveToken: pool.reserveToken + amount, reserveNative: pool.reserveNative - quoted } };
}

/**
 * The price trigger that holds at `price` (take-profit, then stop-loss, then trailing stop), or
 * null. `highest` is the highest price seen so far, this one included. Pure, exact.
 */
export function firedPriceTrigger(triggers: PriceTriggers, price: bigint, entry: bigint | null, highest: bigint): ExitTrigger | null {
  const scaled = price * EXIT_RATIO_SCALE;
  if (entry !== null && triggers.takeProfit !== null && scaled >= entry * triggers.takeProfit) return 'take_profit';
  if (entry !== null && triggers.stopLoss !== null && scaled <= entry * triggers.stopLoss) return 'stop_loss';
  if (triggers.trailingStop !== null && highest > 0n && scaled <= highest * (EXIT_RATIO_SCALE - triggers.trailingStop)) return 'trailing_stop';
  return null;
}

/** The fewest wei a sell may give: `minOut`, else the quote less `maxSlippageBps` (default {@link DEFAULT_EXIT_SLIPPAGE_BPS}). Pure. */
export function sellMinOut(quoted: bigint, minOut: bigint | null, maxSlippageBps: number | null): bigint {
  if (minOut !== null) return minOut;
  return (quoted * BigInt(10_000 - (maxSlippageBps ?? DEFAULT_EXIT_SLIPPAGE_BPS))) / 10_000n;
}

/** Slippage an exit allows when it names neither `minOut` nor `maxSlippageBps`. */
export const DEFAULT_EXIT_SLIPPAGE_BPS = 500;
