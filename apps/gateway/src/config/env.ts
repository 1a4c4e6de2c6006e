import { envInt as int, loadServiceEnv, LOG_ENV, NATS_ENV, POSTGRES_ENV } from '@tradeinfra/service-kit';
import { z } from 'zod';

/** TRUST_PROXY as Express takes it: false (off), true (any proxy), a hop count, or a list. */
function trustProxy(value: string): boolean | number | string {
  const v = value.trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  return /^\d+$/.test(v) ? Number(v) : v;
}

const EnvSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  ...NATS_ENV,
  ...POSTGRES_ENV,
  GATEWAY_DB_USER: z.string().min(1).default('gateway_svc'),
  GATEWAY_DB_PASSWORD: z.string().optional(),
  GATEWAY_DB_POOL_SIZE: int(1, 100).default(10),
  /** Largest accepted request body; larger → 413. */
  BODY_LIMIT_BYTES: int(1024, 10 * 1024 * 1024).default(64 * 1024),
  /** Per-key token bucket, unless the key has its own limit. Per gateway replica. */
  RATE_LIMIT_PER_SECOND: int(1).default(100),
  RATE_LIMIT_BURST: int(1).default(200),
  /**
   * Token bucket per client address for requests without a known-good key (missing, unknown,
   * revoked, or not yet seen by this replica), taken before the key lookup. Per gateway replica.
   * The rate may be a fraction (0.5: one request every 2 s).
   */
  UNAUTH_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().max(1_000_000).default(10),
  UNAUTH_RATE_LIMIT_BURST: int(1).default(100),
  /** How long an unknown key is remembered (no database lookup when it comes again). */
  UNKNOWN_KEY_CACHE_TTL_MS: int(0, 3_600_000).default(60_000),
  /**
   * Express's `trust proxy`: which proxies may set X-Forwarded-For, i.e. where the client
   * address of the per-address limit comes from. Empty: the TCP peer. A hop count (`1`) or
   * addresses/subnets/names (`loopback, 10.0.0.0/8`).
   */
  TRUST_PROXY: z.string().default('').transform(trustProxy),
  /** The whole request body must arrive within this many ms of the headers; else 408. */
  BODY_TIMEOUT_MS: int(100, 300_000).default(10_000),
  /** The request headers must arrive within this many ms of the connection's request start; else 408. */
  HEADERS_TIMEOUT_MS: int(100, 300_000).default(10_000),
  /**
   * Body limit of POST /v1/intents (a batch of up to 100 intents). At most 768 KiB: the batch
   * and its answer travel over NATS, whose messages are at most 1 MiB (max_payload).
   */
  INTENTS_BATCH_BODY_LIMIT_BYTES: int(1024, 768 * 1024).default(512 * 1024),
  /** Body limit of POST /v1/simulate (code overrides are large). */
  SIMULATE_BODY_LIMIT_BYTES: int(1024, 64 * 1024 * 1024).default(1024 * 1024),
  /** How long the gateway waits for a simulation (the service bounds itself at 10 s). */
  SIMULATE_TIMEOUT_MS: int(100, 300_000).default(15_000),
  /** How long the gateway waits for a service's answer before 504. */
  REQUEST_TIMEOUT_MS: int(100, 120_000).default(5_000),
  /** How long a key lookup is cached: a revoked key stops working within this. */
  API_KEY_CACHE_TTL_MS: int(0, 60_000).default(2_000),
  /**
   * Key signing customer dashboard tokens (HMAC-SHA256); unset: a public development key (the
   * gateway warns), so tokens are forgeable: set it outside development.
   */
  DASHBOARD_TOKEN_SECRET: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional(),
  ),
  /** How long a dashboard URL works. */
  DASHBOARD_TOKEN_TTL_SECONDS: int(10, 7 * 24 * 3600).default(900),
  /** Where browsers reach this gateway (dashboard URLs start with it); unset: http://HOST:PORT. */
  PUBLIC_BASE_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .transform((v) => v.replace(/\/+$/, ''))
      .optional(),
  ),
  /** Body limit of POST /v1/rpc and POST /v1/mev (JSON-RPC batches of signed transactions). */
  ORDERFLOW_BODY_LIMIT_BYTES: int(1024, 768 * 1024).default(256 * 1024),
  /** How long the gateway waits for the orderflow service (a private transaction is checked and simulated before its answer). */
  ORDERFLOW_TIMEOUT_MS: int(100, 120_000).default(10_000),
  /** Per searcher (the X-Flashbots-Signature address) and replica: POST /v1/mev requests per second, and at once. */
  MEV_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().max(1_000_000).default(10),
  MEV_RATE_LIMIT_BURST: int(1).default(20),
  /** Open hint streams (GET /v1/mev/stream) per client address and replica. */
  MEV_STREAMS_PER_ADDRESS: int(1, 10_000).default(10),
  /** LOG_FORMAT, and LOG_REQUESTS: log every request (one line each). */
  ...LOG_ENV,
});

export type GatewayEnv = z.output<typeof EnvSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): GatewayEnv {
  return loadServiceEnv('gateway', EnvSchema, source);
}

export const ENV = Symbol('GatewayEnv');
