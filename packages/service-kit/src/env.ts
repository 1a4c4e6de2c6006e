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
