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
  LOG_FORMAT: z.enum(['pretty', 'json']).default('pretty'),
  /** Log every NATS request (subject, x-request-id, outcome, duration). */
  LOG_REQUESTS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

export type IntentServiceEnv = z.output<typeof EnvSchema>;

/** Reads and validates the environment once; exits with every problem listed when it is wrong. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): IntentServiceEnv {
  const result = EnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid intent-service configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

export const ENV = Symbol('IntentServiceEnv');
