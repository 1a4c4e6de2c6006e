/**
 * Streams and durable consumers a service needs, created when missing: at start, and again
 * after a NATS server lost its storage. Their replicas follow NATS_STREAM_REPLICAS: an existing
 * stream or consumer with another count is updated, or the service says why it cannot. Typed
 * structurally on the JetStream manager (`@nats-io/jetstream`'s `jetstreamManager(nc)`), so
 * this package does not pin that client.
 */

interface StreamAdmin<C extends { name: string }> {
  streams: {
    info(name: string): Promise<{ config: object; cluster?: { replicas?: { current: boolean }[] } }>;
    add(config: C): Promise<unknown>;
    update(name: string, config: object): Promise<unknown>;
  };
}

interface ConsumerAdmin<C extends { durable_name?: string }, U> {
  consumers: {
    info(stream: string, consumer: string): Promise<{ config: object }>;
    add(stream: string, config: C): Promise<unknown>;
    update(stream: string, consumer: string, config: U): Promise<unknown>;
  };
}

/** An existing stream or consumer has another replica count, and the server would not change it. */
export class ReplicasMismatch extends Error {
  constructor(what: string, have: number, want: number, cause: unknown) {
    super(
      `${what} has ${have} replica(s) but NATS_STREAM_REPLICAS is ${want}, and NATS refused to change it: ${(cause as Error).message}. ` +
        `A cluster needs at least ${want} JetStream servers for ${want} replicas; set NATS_STREAM_REPLICAS to what the cluster has, ` +
        `or change it by hand (nats stream edit / nats consumer edit --replicas).`,
    );
    this.name = 'ReplicasMismatch';
  }
}

/** Failures a moment later may not repeat: a leader being elected, a group re-forming after a node left. */
function isTransient(err: unknown): boolean {
  const e = err as { name?: string; message?: string; api_error?: { code?: number } } | null;
  return e?.name === 'TimeoutError' || e?.api_error?.code === 503 || /timeout|temporarily unavailable|no responders|leader/i.test(e?.message ?? '');
}

/** `work`, again while it fails transiently, for up to `withinMs`. */
async function retrying<T>(work: () => Promise<T>, withinMs = 20_000): Promise<T> {
  const until = performance.now() + withinMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      return await work();
    } catch (err) {
      if (!isTransient(err) || performance.now() + delay > until) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/** The server's "not found" for a stream or consumer (JetStream error codes 10059 and 10014). */
function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; api_error?: { err_code?: number }; message?: string } | null;
  const code = e?.api_error?.err_code;
  return code === 10059 || code === 10014 || /not found/i.test(e?.message ?? '');
}

/**
 * Creates the stream unless it exists. With `num_replicas` in `config`, an existing stream with
 * another count gets that count (the server moves its data), or ReplicasMismatch is thrown.
 */
export async function ensureStream<C extends { name: string; num_replicas?: number }>(
  jsm: StreamAdmin<C>,
  config: C,
): Promise<'created' | 'updated' | 'unchanged'> {
  let existing: { num_replicas?: number } & Record<string, unknown>;
  try {
    existing = (await retrying(() => jsm.streams.info(config.name))).config as typeof existing;
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await retrying(() => jsm.streams.add(config));
    return 'created';
  }
  const want = config.num_replicas;
  const have = existing.num_replicas ?? 1;
  if (want === undefined || have === want) return 'unchanged';
  try {
    await jsm.streams.update(config.name, { ...existing, num_replicas: want });
  } catch (err) {
    throw new ReplicasMismatch(`JetStream stream ${config.name}`, have, want, err);
  }
  // Its consumers answer again once the re-formed group has caught up.
  await retrying(async () => {
    const peers = (await jsm.streams.info(config.name)).cluster?.replicas ?? [];
    if (peers.length !== want - 1 || !peers.every((p) => p.current)) throw new Error(`stream ${config.name}: replicas not current yet (timeout)`);
  });
  return 'updated';
}

/**
 * Creates the durable consumer (`config.durable_name`) on `stream` unless it exists. An existing
 * one whose `keep` settings differ from `config` gets those settings (a deployment that changed
 * them, e.g. `max_deliver`); its other settings stay as they are. `num_replicas` in `config` is
 * always kept so (ReplicasMismatch when the server refuses).
 */
export async function ensureConsumer<C extends { durable_name?: string; num_replicas?: number }, K extends keyof C & keyof U, U>(
  jsm: ConsumerAdmin<C, U>,
  stream: string,
  config: C & { durable_name: string },
  keep: readonly K[] = [],
): Promise<'created' | 'updated' | 'unchanged'> {
  let existing: Record<string, unknown>;
  try {
    existing = (await retrying(() => jsm.consumers.info(stream, config.durable_name))).config as Record<string, unknown>;
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await retrying(() => jsm.consumers.add(stream, config));
    return 'created';
  }
  const keys = [...keep.map((k) => k as string), ...(config.num_replicas !== undefined ? ['num_replicas'] : [])];
  const current = (k: string) => (k === 'num_replicas' ? (existing[k] as number | undefined) || 0 : existing[k]);
  const changed = keys.filter((k) => current(k) !== (config as Record<string, unknown>)[k]);
  if (changed.length === 0) return 'unchanged';
  try {
    await retrying(() =>
      jsm.consumers.update(stream, config.durable_name, Object.fromEntries(keys.map((k) => [k, (config as Record<string, unknown>)[k]])) as U),
    );
  } catch (err) {
    if (!changed.includes('num_replicas')) throw err;
    throw new ReplicasMismatch(`JetStream consumer ${stream}/${config.durable_name}`, current('num_replicas') as number, config.num_replicas!, err);
  }
  return 'updated';
}
