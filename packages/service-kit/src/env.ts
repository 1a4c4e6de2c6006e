import { z } from 'zod';
import { checkNatsEnv, type NatsEnv } from './nats-connect.js';

/** An integer variable in [min, max]. */
export const envInt = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);

/** A `true` / `false` variable, as a boolean. */
export const envFlag = (fallback = false) =>
  z
    .enum(['true', 'false'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true');

/** The Postgres server and database the services share (each with its own role and schema). */
export const POSTGRES_ENV = {
  PGHOST: z.string().min(1).default('127.0.0.1'),
  PGPORT: envInt(1, 65535).default(5432),
  PGDATABASE: z.string().min(1).default('tradeinfra'),
};

/** How a service logs: `pretty` or `json` lines; LOG_REQUESTS: one line per request. */
export const LOG_ENV = {
  LOG_FORMAT: z.enum(['pretty', 'json']).default('pretty'),
  LOG_REQUESTS: envFlag(),
};

/**
 * Reads a service's environment with `schema` (and, where it has NATS_ENV, checkNatsEnv), then `more` (checks across variables, e.g. the
 * per-chain `RPC_URL_<id>` family, which push their problems; it gets null for the schema's
 * values when those are wrong). Throws one error listing every problem (`  NAME: why`, one per
 * line), so a misconfigured service says everything at once.
 */
export function loadServiceEnv<S extends z.ZodType, T extends object = object>(
  service: string,
  schema: S,
  source: NodeJS.ProcessEnv,
  more?: (env: z.output<S> | null, problems: string[]) => T,
): z.output<S> & T {
  const result = schema.safeParse(source);
  const problems = result.success ? [] : result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  if (result.success && typeof (result.data as { NATS_URL?: unknown }).NATS_URL === 'string') checkNatsEnv(result.data as NatsEnv, problems);
  const extra = more ? more(result.success ? result.data : null, problems) : ({} as T);
  if (!result.success || problems.length > 0) throw new Error(`Invalid ${service} configuration:\n${problems.join('\n')}`);
  return { ...(result.data as object), ...extra } as z.output<S> & T;
}

/** How a chain's several endpoints are chosen between (ChainRpc): lag allowed, how often and how long each is checked. */
export const CHAIN_RPC_ENV = {
  /** An endpoint more than this many blocks behind the highest head of the live ones takes no reads. */
  RPC_MAX_LAG_BLOCKS: envInt(0, 1_000_000).default(2),
  /** How often each endpoint's head is asked, where a chain has several. */
  RPC_CHECK_INTERVAL_MS: envInt(50, 600_000).default(1_000),
  /** A check unanswered this long marks its endpoint down (its calls in flight go to another). */
  RPC_CHECK_TIMEOUT_MS: envInt(50, 600_000).default(2_000),
};

/**
 * The URLs of a comma-separated list (`RPC_URL_<id>`, `WS_URL_<id>` may list several endpoints
 * of one chain), each checked against `protocols` (`http:`, `ws:`, …); a wrong one is pushed to
 * `problems` as `  NAME: why` and left out. Empty or unset: [].
 */
export function urlList(name: string, value: string | undefined, protocols: readonly string[], problems: string[]): string[] {
  const urls = (value ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  return urls.filter((url) => {
    if (URL.canParse(url) && protocols.includes(new URL(url).protocol)) return true;
    problems.push(`  ${name}: ${url.replace(/\/\/[^/@]*@/, '//***@').slice(0, 80)} is not a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL`);
    return false;
  });
}
