import { DEFAULT_CHAIN_IDS } from '@tradeinfra/contracts';
import { z } from 'zod';

const port = z.coerce.number().int().min(1).max(65535);
const positiveMs = z.coerce.number().int().min(1);

const EnvSchema = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  PGHOST: z.string().min(1).default('127.0.0.1'),
  PGPORT: port.default(5432),
  PGDATABASE: z.string().min(1).default('tradeinfra'),
  INTENT_DB_USER: z.string().min(1).default('intent_svc'),
  INTENT_DB_PASSWORD: z.string().optional(),
  INTENT_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
  /** Comma-separated chain ids intents may target. */
  CHAIN_IDS: z
    .string()
    .default(DEFAULT_CHAIN_IDS.join(','))
    .transform((v, ctx) => {
      const ids = v.split(',').map((s) => Number(s.trim()));
      if (ids.length === 0 || ids.some((id) => !Number.isSafeInteger(id) || id < 1)) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of positive integers' });
        return z.NEVER;
      }
      return ids;
    }),
  /** How often the expiry sweeper runs; a pending intent past its expiry is expired within this. */
  EXPIRY_SWEEP_INTERVAL_MS: positiveMs.default(1000),
  /** How often the outbox relay polls when nothing woke it. */
  OUTBOX_POLL_INTERVAL_MS: positiveMs.default(500),
  /** Max age of events kept in the INTENT_EVENTS stream. */
  INTENT_EVENTS_MAX_AGE_HOURS: z.coerce.number().int().min(1).default(24 * 7),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(1).default(24),
  /** Accept http:// notification webhooks (local development); default https only. */
  WEBHOOK_ALLOW_HTTP: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Deliver to webhooks on loopback/private addresses (local development); default refused. */
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Bound on one webhook delivery attempt. */
  NOTIFY_TIMEOUT_MS: positiveMs.default(5_000),
  /** Attempts per notification before it is given up (retries back off up to 5 minutes). */
  NOTIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(25),
  /** How often the launch watcher asks each chain for new blocks (at least once per block time). */
  LAUNCH_POLL_INTERVAL_MS: positiveMs.default(1_000),
  /** Most blocks read per poll (catching up after downtime goes in steps of this). */
  LAUNCH_MAX_BLOCK_RANGE: z.coerce.number().int().min(1).max(10_000).default(500),
  LOG_FORMAT: z.enum(['pretty', 'json']).default('pretty'),
  /** Log every NATS request (subject, x-request-id, outcome, duration). */
  LOG_REQUESTS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

/** Uniswap-V2-style factory and wrapped native token per chain (override with DEX_FACTORY_<id>, WRAPPED_NATIVE_<id>). */
const DEX_DEFAULTS: Record<number, { factory: string; wrappedNative: string }> = {
  1: { factory: '0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f', wrappedNative: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' },
  56: { factory: '0xca143ce32fe78f1f7019d7d551a6402fc5350c73', wrappedNative: '0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c' },
  137: { factory: '0x5757371414417b8c6caad45baef941abc7d3ab32', wrappedNative: '0x0d500b1d8e8ef31e21c99d1db9a6444d3adf1270' },
};

export interface WatchedChain {
  chainId: number;
  rpcUrl: string;
  factory: string;
  wrappedNative: string;
}

/** The chains the launch watcher follows: configured chains with an RPC_URL_<id> and a known DEX. */
function watchedChains(chainIds: number[], source: NodeJS.ProcessEnv): WatchedChain[] {
  const chains: WatchedChain[] = [];
  for (const chainId of chainIds) {
    const rpcUrl = source[`RPC_URL_${chainId}`];
    const factory = (source[`DEX_FACTORY_${chainId}`] ?? DEX_DEFAULTS[chainId]?.factory)?.toLowerCase();
    const wrappedNative = (source[`WRAPPED_NATIVE_${chainId}`] ?? DEX_DEFAULTS[chainId]?.wrappedNative)?.toLowerCase();
    if (rpcUrl && factory && wrappedNative) chains.push({ chainId, rpcUrl, factory, wrappedNative });
  }
  return chains;
}

export type IntentServiceEnv = z.output<typeof EnvSchema> & { watchedChains: WatchedChain[] };

/** Reads and validates the environment once; exits with every problem listed when it is wrong. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): IntentServiceEnv {
  const result = EnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid intent-service configuration:\n${lines.join('\n')}`);
  }
  return { ...result.data, watchedChains: watchedChains(result.data.CHAIN_IDS, source) };
}

export const ENV = Symbol('IntentServiceEnv');
