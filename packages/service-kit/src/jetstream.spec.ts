import { ensureConsumer, ensureStream } from './jetstream.js';

/** A JetStream manager holding streams and consumers in memory, recording what it was asked. */
function fakeManager() {
  const streams = new Map<string, object>();
  const consumers = new Map<string, Record<string, unknown>>();
  const calls: string[] = [];
  const missing = () => Object.assign(new Error('stream not found'), { code: '404', api_error: { err_code: 10059 } });
  return {
    streams,
    consumers,
    calls,
    jsm: {
      streams: {
        info: async (name: string) => {
          const config = streams.get(name);
          return config ? { config } : Promise.reject(missing());
        },
        update: async (name: string, config: Record<string, unknown>) => {
          calls.push(`update stream ${name} ${JSON.stringify(config)}`);
          streams.set(name, config);
          return config;
        },
        add: async (config: { name: string } & Record<string, unknown>) => {
          calls.push(`add stream ${config.name}`);
          streams.set(config.name, config);
          return config;
        },
      },
      consumers: {
        info: async (stream: string, name: string) => {
          const config = consumers.get(`${stream}/${name}`);
          return config ? { config } : Promise.reject(missing());
        },
        add: async (stream: string, config: { durable_name?: string } & Record<string, unknown>) => {
          calls.push(`add consumer ${stream}/${config.durable_name}`);
          consumers.set(`${stream}/${config.durable_name}`, { ...config });
          return config;
        },
        update: async (stream: string, name: string, config: Record<string, unknown>) => {
          calls.push(`update consumer ${stream}/${name} ${JSON.stringify(config)}`);
          Object.assign(consumers.get(`${stream}/${name}`)!, config);
          return config;
        },
      },
    },
  };
}

describe('ensureStream', () => {
  it('creates a missing stream once, and leaves an existing one alone', async () => {
    const f = fakeManager();
    expect(await ensureStream(f.jsm, { name: 'S', subjects: ['s.>'] })).toBe('created');
    expect(await ensureStream(f.jsm, { name: 'S', subjects: ['other.>'] })).toBe('unchanged');
    expect(f.calls).toEqual(['add stream S']);
    expect(f.streams.get('S')).toEqual({ name: 'S', subjects: ['s.>'] });
  });

  it('does not take another failure of the lookup for a missing stream', async () => {
    const f = fakeManager();
    f.jsm.streams.info = () => Promise.reject(new Error("Permissions Violation for Publish to '$JS.API.STREAM.INFO.S'"));
    await expect(ensureStream(f.jsm, { name: 'S', subjects: ['s.>'] })).rejects.toThrow('Permissions Violation');
    expect(f.calls).toEqual([]);
  });
});

describe('ensureConsumer', () => {
  const config = { durable_name: 'c', ack_policy: 'explicit', max_deliver: 5, ack_wait: 1_000, max_ack_pending: 10 };

  it('creates a missing consumer with the whole config', async () => {
    const f = fakeManager();
    expect(await ensureConsumer(f.jsm, 'S', config)).toBe('created');
    expect(f.consumers.get('S/c')).toEqual(config);
  });

  it('brings only the kept settings of an existing consumer up to date, and only when they differ', async () => {
    const f = fakeManager();
    f.consumers.set('S/c', { ...config, max_deliver: 3, max_ack_pending: 99 });
    expect(await ensureConsumer(f.jsm, 'S', config, ['max_deliver', 'ack_wait'])).toBe('updated');
    expect(f.calls).toEqual(['update consumer S/c {"max_deliver":5,"ack_wait":1000}']);
    expect(f.consumers.get('S/c')).toMatchObject({ max_deliver: 5, max_ack_pending: 99 });
    expect(await ensureConsumer(f.jsm, 'S', config, ['max_deliver', 'ack_wait'])).toBe('unchanged');
    expect(await ensureConsumer(f.jsm, 'S', { ...config, max_ack_pending: 1 })).toBe('unchanged');
    expect(f.calls).toHaveLength(1);
  });
});
