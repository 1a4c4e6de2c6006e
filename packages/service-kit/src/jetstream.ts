/**
 * Streams and durable consumers a service needs, created when missing: at start, and again
 * after a NATS server lost its storage. Typed structurally on the JetStream manager
 * (`@nats-io/jetstream`'s `jetstreamManager(nc)`), so this package does not pin that client.
 */

interface StreamAdmin<C extends { name: string }> {
  streams: {
    info(name: string): Promise<unknown>;
    add(config: C): Promise<unknown>;
  };
}

interface ConsumerAdmin<C extends { durable_name?: string }, U> {
  consumers: {
    info(stream: string, consumer: string): Promise<{ config: object }>;
    add(stream: string, config: C): Promise<unknown>;
    update(stream: string, consumer: string, config: U): Promise<unknown>;
  };
}

/** Creates the stream unless it exists; true when it was created. */
export async function ensureStream<C extends { name: string }>(jsm: StreamAdmin<C>, config: C): Promise<boolean> {
  try {
    await jsm.streams.info(config.name);
    return false;
  } catch {
    await jsm.streams.add(config);
    return true;
  }
}

/**
 * Creates the durable consumer (`config.durable_name`) on `stream` unless it exists. An existing
 * one whose `keep` settings differ from `config` gets those settings (a deployment that changed
 * them, e.g. `max_deliver`); its other settings stay as they are.
 */
export async function ensureConsumer<C extends { durable_name?: string }, K extends keyof C & keyof U, U>(
  jsm: ConsumerAdmin<C, U>,
  stream: string,
  config: C & { durable_name: string },
  keep: readonly K[] = [],
): Promise<'created' | 'updated' | 'unchanged'> {
  let existing: Record<string, unknown>;
  try {
    existing = (await jsm.consumers.info(stream, config.durable_name)).config as Record<string, unknown>;
  } catch {
    await jsm.consumers.add(stream, config);
    return 'created';
  }
  const changed = keep.filter((k) => existing[k as string] !== config[k]);
  if (changed.length === 0) return 'unchanged';
  await jsm.consumers.update(stream, config.durable_name, Object.fromEntries(keep.map((k) => [k, config[k]])) as U);
  return 'updated';
}
