import { readFileSync } from 'node:fs';
import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';

/**
 * How every process finds and authenticates to NATS (docs/operations/nats.md): the servers
 * (comma-separated), this service's NATS user, TLS, and the replicas of what it creates.
 */
export const NATS_ENV = {
  NATS_URL: z
    .string()
    .min(1)
    .default('nats://127.0.0.1:4222')
    .refine((v) => parseNatsServers(v).every((s) => s.ok), { message: 'a comma-separated list of nats://host:port or tls://host:port' }),
  /** This service's NATS user and password (infra/nats/auth.conf); both or neither. */
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9]{15,}$/, {
      // nats-server reads a password from its environment as a configuration value: `1k` becomes a number, `no` false.
      message: 'must be a letter then letters and digits, at least 16 in all (nats-server would misread other values), e.g. p$(openssl rand -hex 24)',
    })
    .optional(),
  /** `true`: refuse a server that does not speak TLS (implied by a CA file or a tls:// URL). */
  NATS_TLS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** PEM files: the CA that signed the servers' certificates; a client certificate and key where the server verifies clients. */
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  NATS_TLS_CERT_FILE: z.string().min(1).optional(),
  NATS_TLS_KEY_FILE: z.string().min(1).optional(),
  /** Replicas of every stream, consumer and bucket the services create: 1 on one server, 3 on a 3-node cluster. */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** `true` (the tests): every request and reply on a route of NATS_ROUTES is checked against its schemas; a mismatch throws. */
  NATS_CHECK_MESSAGES: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
};

export type NatsEnv = z.output<z.ZodObject<typeof NATS_ENV>>;

/** Whether each comma-separated entry of NATS_URL is a server URL (a bare host:port counts). */
export function parseNatsServers(value: string): { url: string; ok: boolean }[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((url) => {
      const m = /^(?:(nats|tls):\/\/)?([^\s/:@]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(url);
      return { url, ok: m !== null && Number(m[3]) > 0 && Number(m[3]) < 65536 };
    });
}

/** Cross-variable checks of NATS_ENV, for loadServiceEnv's `more`: pushes each problem. */
export function checkNatsEnv(env: Partial<NatsEnv> | null, problems: string[]): void {
  if (!env) return;
  if ((env.NATS_USER === undefined) !== (env.NATS_PASSWORD === undefined)) {
    problems.push('  NATS_PASSWORD: NATS_USER and NATS_PASSWORD go together (set both, or neither for a server without users)');
  }
  if ((env.NATS_TLS_CERT_FILE === undefined) !== (env.NATS_TLS_KEY_FILE === undefined)) {
    problems.push('  NATS_TLS_KEY_FILE: NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together');
  }
  for (const name of ['NATS_TLS_CA_FILE', 'NATS_TLS_CERT_FILE', 'NATS_TLS_KEY_FILE'] as const) {
    const file = env[name];
    if (file === undefined) continue;
    try {
      readFileSync(file);
    } catch (err) {
      problems.push(`  ${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
}

/**
 * The connection options every NATS connection of a service uses: all listed servers (the client
 * moves to another on failure, and learns the cluster's other members), the user, TLS, an inbox of
 * the user's own (`_INBOX_<user>.`: permissions let a user read its own replies only), reconnects
 * forever, pings every second so a server cut off without a reset is left within ~2-3 s, and gives
 * up a dial after 3 s (a cut-off server does not refuse, it stays silent).
 */
export function natsConnectionOptions(env: NatsEnv, name: string, extra: Partial<ConnectionOptions> = {}): ConnectionOptions {
  const servers = parseNatsServers(env.NATS_URL).map((s) => s.url);
  const tlsWanted = env.NATS_TLS || env.NATS_TLS_CA_FILE !== undefined || servers.some((s) => s.startsWith('tls://'));
  return {
    servers,
    name,
    ...(env.NATS_USER !== undefined ? { user: env.NATS_USER, pass: env.NATS_PASSWORD, inboxPrefix: natsInboxPrefix(env.NATS_USER) } : {}),
    ...(tlsWanted
      ? {
          tls: {
            ...(env.NATS_TLS_CA_FILE ? { caFile: env.NATS_TLS_CA_FILE } : {}),
            ...(env.NATS_TLS_CERT_FILE ? { certFile: env.NATS_TLS_CERT_FILE, keyFile: env.NATS_TLS_KEY_FILE } : {}),
          },
        }
      : {}),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: 1_000,
    maxPingOut: 2,
    // Per attempt: a server cut off does not answer a dial at all; the next one is tried after this.
    timeout: 3_000,
    ...extra,
  };
}

/** The inbox prefix of a NATS user: its replies come only to subjects below it. */
export function natsInboxPrefix(user: string): string {
  return `_INBOX_${user}`;
}

/** Connects with natsConnectionOptions: the one way services, the gateway and the CLIs reach NATS. */
export function connectNats(env: NatsEnv, name: string, extra: Partial<ConnectionOptions> = {}): Promise<NatsConnection> {
  return connect(natsConnectionOptions(env, name, extra));
}

/** Just what natsConnectionOptions reads, from a service's whole env. */
export function natsEnvOf(env: NatsEnv): NatsEnv {
  const { NATS_URL, NATS_USER, NATS_PASSWORD, NATS_TLS, NATS_TLS_CA_FILE, NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE, NATS_STREAM_REPLICAS, NATS_CHECK_MESSAGES } =
    env;
  return { NATS_URL, NATS_USER, NATS_PASSWORD, NATS_TLS, NATS_TLS_CA_FILE, NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE, NATS_STREAM_REPLICAS, NATS_CHECK_MESSAGES };
}

/** A NatsEnv for one server without users or TLS (tests, benchmarks, tools). */
export function plainNatsEnv(url: string, replicas = 1, checkMessages = false): NatsEnv {
  return { NATS_URL: url, NATS_TLS: false, NATS_STREAM_REPLICAS: replicas, NATS_CHECK_MESSAGES: checkMessages };
}
