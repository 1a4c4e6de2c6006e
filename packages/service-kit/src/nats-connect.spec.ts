import { jetstreamManager } from '@nats-io/jetstream';
import { freePort, TestNatsCluster } from '@tradeinfra/test-support';
import { z } from 'zod';
import { loadServiceEnv } from './env.js';
import { ensureConsumer, ensureStream, ReplicasMismatch } from './jetstream.js';
import { connectNats, NATS_ENV, natsConnectionOptions, plainNatsEnv } from './nats-connect.js';

const Schema = z.object({ ...NATS_ENV });

describe('NATS_ENV', () => {
  it('takes a comma-separated list of servers, with or without scheme', () => {
    const env = loadServiceEnv('svc', Schema, { NATS_URL: 'nats://a:4222, tls://b.example:4223,c:4224', NATS_STREAM_REPLICAS: '3' });
    expect(natsConnectionOptions(env, 'svc').servers).toEqual(['nats://a:4222', 'tls://b.example:4223', 'c:4224']);
    expect(env.NATS_STREAM_REPLICAS).toBe(3);
  });

  it('names every wrong setting at once', () => {
    expect(() =>
      loadServiceEnv('svc', Schema, {
        NATS_URL: 'nats://a:4222,http://b:80',
        NATS_USER: 'gateway',
        NATS_STREAM_REPLICAS: '7',
        NATS_TLS_CA_FILE: '/nonexistent/ca.pem',
      }),
    ).toThrow(/NATS_URL: a comma-separated list of nats:\/\/host:port[^\n]*\n {2}NATS_STREAM_REPLICAS: [^\n]+$/);
    expect(() => loadServiceEnv('svc', Schema, { NATS_USER: 'gateway', NATS_TLS_CA_FILE: '/nonexistent/ca.pem' })).toThrow(
      'Invalid svc configuration:\n  NATS_PASSWORD: NATS_USER and NATS_PASSWORD go together (set both, or neither for a server without users)\n  NATS_TLS_CA_FILE: cannot read /nonexistent/ca.pem (ENOENT)',
    );
  });

  it('refuses a password nats-server would misread from its environment', () => {
    for (const bad of ['1kabcdefabcdefabcdef', 'no', 'short1', 'has-dash-0123456789', '"quoted0123456789"']) {
      expect(() => loadServiceEnv('svc', Schema, { NATS_USER: 'gateway', NATS_PASSWORD: bad })).toThrow(
        /NATS_PASSWORD: must be a letter then letters and digits/,
      );
    }
    expect(loadServiceEnv('svc', Schema, { NATS_USER: 'gateway', NATS_PASSWORD: 'p0123456789abcdef' }).NATS_PASSWORD).toBe('p0123456789abcdef');
  });

  it('gives a user its own inbox, and TLS when a CA or a tls:// server is named', () => {
    const user = natsConnectionOptions({ ...plainNatsEnv('nats://a:4222'), NATS_USER: 'gateway', NATS_PASSWORD: 'pw' }, 'gw');
    expect(user).toMatchObject({ user: 'gateway', pass: 'pw', inboxPrefix: '_INBOX_gateway' });
    expect(user.tls).toBeUndefined();
    expect(natsConnectionOptions(plainNatsEnv('tls://a:4222'), 'x').tls).toEqual({});
    expect(natsConnectionOptions({ ...plainNatsEnv('nats://a:4222'), NATS_TLS_CA_FILE: '/ca.pem' }, 'x').tls).toEqual({ caFile: '/ca.pem' });
  });
});

describe('on a 3-node cluster', () => {
  let cluster: TestNatsCluster;
  beforeAll(async () => {
    cluster = await TestNatsCluster.start();
  });
  afterAll(() => cluster?.dispose());

  it('connects through whichever listed server answers', async () => {
    const dead = `nats://127.0.0.1:${await freePort()}`;
    for (let i = 0; i < 3; i++) {
      const nc = await connectNats(plainNatsEnv(`${dead},${cluster.nodeUrl(i)}`), 'list-test');
      expect(nc.getServer()).toBe(cluster.nodeUrl(i).slice('nats://'.length));
      await nc.close();
    }
  });

  it('brings an existing stream and consumer to NATS_STREAM_REPLICAS, and says why it cannot go beyond the cluster', async () => {
    const nc = await connectNats(plainNatsEnv(cluster.url), 'replicas-test');
    try {
      const jsm = await jetstreamManager(nc);
      const stream = { name: 'REPL', subjects: ['repl.>'] };
      const consumer = { durable_name: 'c', ack_policy: 'explicit' as const };
      expect(await ensureStream(jsm, { ...stream, num_replicas: 1 })).toBe('created');
      expect(await ensureConsumer(jsm, 'REPL', { ...consumer, num_replicas: 1 })).toBe('created');
      expect((await cluster.streamInfo('REPL')).replicas).toBe(1);

      expect(await ensureStream(jsm, { ...stream, num_replicas: 3 })).toBe('updated');
      expect(await ensureConsumer(jsm, 'REPL', { ...consumer, num_replicas: 3 })).toBe('updated');
      const info = await cluster.streamInfo('REPL');
      expect(info.replicas).toBe(3);
      expect(info.peers).toHaveLength(2);
      expect((await jsm.consumers.info('REPL', 'c')).config.num_replicas).toBe(3);
      expect(await ensureStream(jsm, { ...stream, num_replicas: 3 })).toBe('unchanged');
      expect(await ensureConsumer(jsm, 'REPL', { ...consumer, num_replicas: 3 })).toBe('unchanged');

      const tooMany = ensureStream(jsm, { ...stream, num_replicas: 5 });
      await expect(tooMany).rejects.toThrow(ReplicasMismatch);
      await expect(ensureStream(jsm, { ...stream, num_replicas: 5 })).rejects.toThrow(
        /^JetStream stream REPL has 3 replica\(s\) but NATS_STREAM_REPLICAS is 5, and NATS refused to change it: .+\. A cluster needs at least 5 JetStream servers/,
      );
    } finally {
      await nc.close();
    }
  });
});
