import { z } from 'zod';

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

const EnvSchema = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  PGHOST: z.string().min(1).default('127.0.0.1'),
  PGPORT: int(1, 65535).default(5432),
  PGDATABASE: z.string().min(1).default('tradeinfra'),
  PAYOUT_DB_USER: z.string().min(1).default('payout_svc'),
  PAYOUT_DB_PASSWORD: z.string().optional(),
  PAYOUT_DB_POOL_SIZE: int(1, 200).default(20),
  /** Chains entries may be on. */
  PAYOUT_CHAIN_IDS: z
    .string()
    .default('1,56,137')
    .transform((v, ctx) => {
      const ids = v.split(',').map((s) => Number(s.trim()));
      if (ids.some((id) => !Number.isSafeInteger(id) || id < 1)) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of positive integers' });
        return z.NEVER;
      }
      return ids;
    }),
  /** Assets entries may be in, with their decimals: `SYMBOL:decimals,...`. */
  PAYOUT_ASSETS: z
    .string()
    .default('ETH:18,WETH:18,BNB:18,WBNB:18,POL:18,MATIC:18,USDC:6,USDT:6')
    .transform((v, ctx) => {
      const assets = new Map<string, number>();
      for (const part of v.split(',')) {
        const [symbol, decimals] = part.trim().split(':');
        if (!symbol || !/^[A-Z0-9]{1,16}$/.test(symbol) || !/^\d{1,2}$/.test(decimals ?? '') || Number(decimals) > 18) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not SYMBOL:decimals (decimals 0..18)` });
          return z.NEVER;
        }
        assets.set(symbol, Number(decimals));
      }
      return assets;
    }),
  /** Smallest payout per asset, `SYMBOL:amount,...`; assets not listed: anything above 0. */
  PAYOUT_MINIMUMS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const minimums = new Map<string, string>();
      for (const part of v.split(',').map((p) => p.trim()).filter(Boolean)) {
        const [symbol, amount] = part.split(':');
        if (!symbol || !amount || !DECIMAL.test(amount)) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not SYMBOL:amount` });
          return z.NEVER;
        }
        minimums.set(symbol, amount);
      }
      return minimums;
    }),
  /** Most MEV-capture events applied per database statement. */
  INGEST_BATCH: int(1, 5000).default(500),
  LOG_FORMAT: z.enum(['pretty', 'json']).default('pretty'),
  LOG_REQUESTS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

export type PayoutServiceEnv = z.output<typeof EnvSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): PayoutServiceEnv {
  const result = EnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid payout-service configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

export const ENV = Symbol('PayoutServiceEnv');
