import { z } from 'zod';
import { boolean, integer, typeError, uint256String } from './validation.js';

/*
 * Exit intents (`POST /v1/exit`): a sell of a token the wallet holds, fired by a price trigger
 * (take-profit, stop-loss, trailing stop) or by a pending transaction that would rug the pool.
 * Stored and read as intents (same routes, statuses, notifications); docs/api/exits.md.
 */

/** The trigger that fired an exit (its notifications' `data.trigger`). */
export const EXIT_TRIGGERS = ['take_profit', 'stop_loss', 'trailing_stop', 'on_rug'] as const;
export type ExitTrigger = (typeof EXIT_TRIGGERS)[number];

/** Scale of a multiple or fraction in exact arithmetic: 18 decimals. */
export const EXIT_RATIO_SCALE = 10n ** 18n;

/** A JSON number as an exact scaled integer (× 10^18), or null when it has more than 18 decimals. */
export function scaledRatio(value: number | string): bigint | null {
  const text = typeof value === 'number' ? value.toString() : value;
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!m) return null;
  const digits = `${m[1]}${m[2] ?? ''}`;
  const exponent = Number(m[3] ?? 0) - (m[2]?.length ?? 0) + 18;
  if (exponent < 0) {
    const cut = digits.slice(digits.length + exponent);
    if (/[1-9]/.test(cut)) return null;
    return BigInt(digits.slice(0, digits.length + exponent) || '0');
  }
  return BigInt(digits) * 10n ** BigInt(exponent);
}

/** A positive ratio (multiple or fraction) with at most 18 decimals; `max` exclusive when given. */
function ratio(what: string, max: number | null) {
  const range = max === null ? 'a number above 0' : `a number above 0 and below ${max}`;
  return z
    .number({ error: typeError(`${what}: ${range}`) })
    .refine((v) => Number.isFinite(v) && v > 0 && (max === null || v < max), { error: `must be ${range}`, abort: true })
    .refine((v) => scaledRatio(v) !== null, { error: 'must have at most 18 decimals' });
}

function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v) => v ?? null);
}

/** The triggers and sell terms an exit is made of (also a buy's `exit` object). */
function exitTerms() {
  return {
    /** Sell when the price reaches this multiple of the entry price (e.g. 2.0). */
    takeProfit: optional(ratio('a multiple of the entry price', null).refine((v) => v > 1, { error: 'must be above 1 (a multiple of the entry price)' })),
    /** Sell when the price falls to this fraction of the entry price (e.g. 0.5). */
    stopLoss: optional(ratio('a fraction of the entry price', 1)),
    /** Sell when the price falls this fraction below the highest price seen since creation. */
    trailingStop: optional(ratio('a fraction below the highest price', 1)),
    /** Sell ahead of a pending transaction that would remove liquidity, raise the sell tax or stop trading. */
    onRug: optional(boolean()),
    amount: z
      .union([z.literal('all'), uint256String('token units')], { error: 'must be token units as a decimal integer string, or "all"' })
      .nullish()
      .transform((v) => v ?? 'all'),
    minOut: optional(uint256String('wei')),
    maxSlippageBps: optional(integer(0, 10_000, 'basis points')),
    bribe: optional(uint256String('wei')).transform((v) => v ?? '0'),
  };
}

function atLeastOneTrigger(
  exit: { takeProfit: number | null; stopLoss: number | null; trailingStop: number | null; onRug: boolean | null },
  ctx: z.RefinementCtx,
): void {
  if (exit.takeProfit === null && exit.stopLoss === null && exit.trailingStop === null && exit.onRug !== true) {
    ctx.addIssue({
      code: 'custom',
      path: ['takeProfit'],
      message: 'an exit needs at least one trigger: takeProfit, stopLoss, trailingStop or onRug: true',
      input: undefined,
    });
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A buy intent's `exit` object: the exit created when the buy completes, with the buy's measured
 * entry price and the balance then held (`amount` "all" unless given).
 */
export const BuyExitSchema = z
  .strictObject({
    ...exitTerms(),
    expiry: integer(0, Number.MAX_SAFE_INTEGER, 'a unix timestamp in seconds'),
  })
  .superRefine(atLeastOneTrigger);
export type BuyExit = z.output<typeof BuyExitSchema>;

/**
 * The exit fields of `POST /v1/exit` beside the intent's own (chainId, wallet, tokenAddress,
 * expiry, webhooks): built by `createExitRequestSchema` in intents.ts with the same field checks.
 */
export function exitFields() {
  return {
    ...exitTerms(),
    /** Wei of the native token per whole token (10^decimals units). */
    entryPrice: optional(uint256String('wei per whole token')),
    /** A completed buy intent whose executed price (measured from its receipt) is the entry price. */
    followsIntentId: optional(
      z
        .string({ error: 'must be an intent id (UUID)' })
        .regex(UUID, { error: 'must be an intent id (UUID)' })
        .transform((v) => v.toLowerCase()),
    ),
  };
}

/** The cross-field rules of an exit: a trigger; one entry price source; an entry price for the triggers that need one. */
export function exitRules(
  exit: {
    takeProfit: number | null;
    stopLoss: number | null;
    trailingStop: number | null;
    onRug: boolean | null;
    entryPrice: string | null;
    followsIntentId: string | null;
  },
  ctx: z.RefinementCtx,
): void {
  atLeastOneTrigger(exit, ctx);
  if (exit.entryPrice !== null && exit.followsIntentId !== null) {
    ctx.addIssue({ code: 'custom', path: ['followsIntentId'], message: 'give entryPrice or followsIntentId, not both', input: exit.followsIntentId });
  }
  if (exit.entryPrice === '0') ctx.addIssue({ code: 'custom', path: ['entryPrice'], message: 'must be above 0', input: exit.entryPrice });
  if ((exit.takeProfit !== null || exit.stopLoss !== null) && exit.entryPrice === null && exit.followsIntentId === null) {
    ctx.addIssue({
      code: 'custom',
      path: [exit.takeProfit !== null ? 'takeProfit' : 'stopLoss'],
      message: 'needs an entry price: entryPrice, or followsIntentId naming a completed buy',
      input: undefined,
    });
  }
}

/** What the exit part of an intent record says: its triggers and what was measured. */
export const ExitRecordSchema = z
  .strictObject({
    amount: z.string().meta({ description: 'Token units to sell (decimal string), or "all" (the balance when it fires)' }),
    takeProfit: z.number().nullable(),
    stopLoss: z.number().nullable(),
    trailingStop: z.number().nullable(),
    onRug: z.boolean().nullable(),
    entryPrice: z.string().nullable().meta({ description: 'Wei per whole token; null until measured (followsIntentId) or for a buy' }),
    followsIntentId: z.uuid().nullable(),
    highestPrice: z.string().nullable().meta({ description: 'The highest executable sell price seen since creation (wei per whole token)' }),
    trigger: z.enum(EXIT_TRIGGERS).nullable().meta({ description: 'The trigger that fired; null until one does' }),
    price: z.string().nullable().meta({ description: 'The executable price measured when it fired (wei per whole token)' }),
    expiry: z.number().int().nullable().meta({ description: 'A buy’s exit: the expiry the exit is created with; null on an exit itself' }),
  })
  .meta({ description: 'An exit’s triggers and measurements; on a buy, the exit it creates when it completes' });
export type ExitRecord = z.output<typeof ExitRecordSchema>;
