import { connectNats, type NatsEnv } from './nats-connect.js';

/**
 * The oldest nats-server the services run on: nats.js 3's JetStream consumer API (`consume`,
 * `fetch`, `consumers.get`) needs 2.9.4; `max_deliver` and delayed naks are older.
 */
export const MIN_NATS_SERVER_VERSION = '2.9.4';

/** `+TERM <reason>` is understood from this version on; older servers ignore the whole ack. */
export const NATS_TERM_REASON_VERSION = '2.11.0';

function parts(version: string): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** True when `version` (e.g. "2.9.10", "v2.11.0-beta.1") is at least `minimum`; false when unreadable. */
export function natsVersionAtLeast(version: string | undefined, minimum: string): boolean {
  const have = version ? parts(version) : null;
  const want = parts(minimum)!;
  if (!have) return false;
  for (let i = 0; i < 3; i++) if (have[i] !== want[i]) return have[i]! > want[i]!;
  return true;
}

/** Throws a clear error unless the server's version (from its INFO) is at least MIN_NATS_SERVER_VERSION. */
export function requireNatsServerVersion(version: string | undefined, service: string): void {
  if (natsVersionAtLeast(version, MIN_NATS_SERVER_VERSION)) return;
  throw new Error(
    `${service} needs nats-server ${MIN_NATS_SERVER_VERSION} or newer (with JetStream); the server at NATS_URL ` +
      `${version ? `is ${version}` : 'did not say its version'}. Upgrade nats-server.`,
  );
}

/** Connects once to read the server's version, refusing to go on below the minimum. */
export async function checkNatsServer(env: NatsEnv, service: string): Promise<string> {
  const nc = await connectNats(env, `${service}-version-check`);
  try {
    const version = nc.info?.version;
    requireNatsServerVersion(version, service);
    return version!;
  } finally {
    await nc.close();
  }
}
