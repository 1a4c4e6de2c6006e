import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  EXIT_CREATE,
  INTENT_CANCEL,
  INTENT_CANCEL_BATCH,
  INTENT_CREATE,
  INTENT_CREATE_BATCH,
  INTENT_EVENTS_STREAM,
  INTENT_GET,
  INTENT_HEALTH,
  INTENT_NOTIFICATION_SECRET,
  INTENT_NOTIFICATION_SECRET_ROTATE,
  INTENT_SEARCH,
  MEV_CAPTURE_DLQ_STREAM,
  MEV_CAPTURE_DLQ_SUBJECT,
  MEV_CAPTURE_STREAM,
  MEV_CAPTURE_SUBJECTS,
  ORDERFLOW_HEALTH,
  ORDERFLOW_MEV,
  ORDERFLOW_RPC,
  orderflowHintSubject,
  PAYOUT_ENTRIES_BY_TX,
  PAYOUT_ENTRIES_LIST,
  PAYOUT_ENTRY_RECORD,
  PAYOUT_GET,
  PAYOUT_HEALTH,
  PAYOUT_REQUEST,
  PAYOUT_SOURCE_CASHBACK,
  PAYOUT_SOURCE_GET,
  PAYOUT_SOURCE_PAYOUTS,
  PAYOUT_SOURCE_REGISTER,
  PAYOUT_TRANSITION,
  PAYOUT_TREASURY,
  SIMULATION_HEALTH,
  SIMULATION_SIMULATE,
  SIMULATION_SIMULATE_STREAM,
} from '@tradeinfra/contracts';
import { connectNats, ensureConsumer, ensureStream, NatsConnections, plainNatsEnv, type NatsEnv } from '@tradeinfra/service-kit';
import { TestNatsServer } from '@tradeinfra/test-support';
import { EventsPublisher } from '../../apps/intent-service/src/outbox/events.publisher.js';
import type { IntentServiceEnv } from '../../apps/intent-service/src/config/env.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CONFIG = join(ROOT, 'infra', 'nats', 'nats.conf');

type Identity = 'gateway' | 'intent' | 'payout' | 'simulation' | 'orderflow' | 'mev-capture';
const IDENTITIES: Identity[] = ['gateway', 'intent', 'payout', 'simulation', 'orderflow', 'mev-capture'];
const PASSWORDS = Object.fromEntries(IDENTITIES.map((u) => [u, `p${randomBytes(24).toString('hex')}`])) as Record<Identity, string>;
/** The server's environment: the variables auth.conf names. */
const SERVER_ENV = Object.fromEntries(IDENTITIES.map((u) => [`NATS_${u.toUpperCase().replace('-', '_')}_PASSWORD`, PASSWORDS[u]]));

const INTENT_REQUESTS = [
  INTENT_CREATE,
  EXIT_CREATE,
  INTENT_GET,
  INTENT_SEARCH,
  INTENT_CANCEL,
  INTENT_CREATE_BATCH,
  INTENT_CANCEL_BATCH,
  INTENT_HEALTH,
  INTENT_NOTIFICATION_SECRET,
  INTENT_NOTIFICATION_SECRET_ROTATE,
];
const PAYOUT_REQUESTS = [
  PAYOUT_HEALTH,
  PAYOUT_ENTRIES_BY_TX,
  PAYOUT_ENTRIES_LIST,
  PAYOUT_ENTRY_RECORD,
  PAYOUT_SOURCE_CASHBACK,
  PAYOUT_SOURCE_REGISTER,
  PAYOUT_SOURCE_PAYOUTS,
  PAYOUT_REQUEST,
  PAYOUT_GET,
  PAYOUT_TRANSITION,
  PAYOUT_SOURCE_GET,
];
const SIMULATION_REQUESTS = [SIMULATION_SIMULATE, SIMULATION_HEALTH];
const ORDERFLOW_REQUESTS = [ORDERFLOW_RPC, ORDERFLOW_MEV, ORDERFLOW_HEALTH];

/**
 * What each identity must NOT be able to do (`pub SUBJECT` / `sub SUBJECT`): impersonating a
 * service, calling another's subjects, reading another's inbox, faking captures or events,
 * touching streams and consumers not its own, deleting or purging its own.
 */
const DENIED: Record<Identity, string[]> = {
  gateway: [
    `sub ${INTENT_CREATE}`,
    `sub ${INTENT_NOTIFICATION_SECRET}`,
    `sub ${PAYOUT_TRANSITION}`,
    `sub ${SIMULATION_SIMULATE}`,
    `pub ${SIMULATION_SIMULATE_STREAM}`,
    'pub mev.captured.1',
    'pub intent.events.completed',
    `pub ${MEV_CAPTURE_DLQ_SUBJECT}`,
    'sub _INBOX.>',
    'sub _INBOX_intent.>',
    'pub $JS.API.INFO',
    `pub $JS.API.STREAM.INFO.${INTENT_EVENTS_STREAM}`,
    `pub $JS.API.CONSUMER.MSG.NEXT.${MEV_CAPTURE_STREAM}.payout-service`,
    `pub $JS.API.STREAM.DELETE.${INTENT_EVENTS_STREAM}`,
    `sub ${ORDERFLOW_RPC}`,
    `pub ${orderflowHintSubject(1)}`,
    `pub ${PAYOUT_TREASURY}`,
    'sub _INBOX_orderflow.>',
  ],
  intent: [
    `pub ${INTENT_CREATE}`,
    `pub ${INTENT_NOTIFICATION_SECRET}`,
    `pub ${PAYOUT_TRANSITION}`,
    `pub ${PAYOUT_ENTRY_RECORD}`,
    'pub mev.captured.1',
    `sub ${PAYOUT_TRANSITION}`,
    `sub ${SIMULATION_SIMULATE}`,
    'sub intent.events.>',
    'sub _INBOX_gateway.>',
    `pub $JS.API.STREAM.DELETE.${INTENT_EVENTS_STREAM}`,
    `pub $JS.API.STREAM.PURGE.${INTENT_EVENTS_STREAM}`,
    `pub $JS.API.CONSUMER.DELETE.${INTENT_EVENTS_STREAM}.intent-notifier`,
    `pub $JS.API.CONSUMER.CREATE.${INTENT_EVENTS_STREAM}.other`,
    `pub $JS.API.STREAM.INFO.${MEV_CAPTURE_STREAM}`,
    `pub $JS.API.CONSUMER.CREATE.${MEV_CAPTURE_STREAM}.payout-service`,
    `pub $JS.API.CONSUMER.MSG.NEXT.${MEV_CAPTURE_STREAM}.payout-service`,
    `pub $JS.ACK.${MEV_CAPTURE_STREAM}.payout-service.1.1.1.1.1`,
    `pub ${ORDERFLOW_RPC}`,
    `pub ${PAYOUT_TREASURY}`,
    `sub ${orderflowHintSubject(1)}`,
  ],
  payout: [
    `pub ${INTENT_NOTIFICATION_SECRET}`,
    `pub ${INTENT_CREATE}`,
    `pub ${PAYOUT_TRANSITION}`,
    'pub mev.captured.1',
    'pub intent.events.completed',
    `pub ${SIMULATION_SIMULATE_STREAM}`,
    `sub ${INTENT_CREATE}`,
    'sub mev.captured.>',
    'sub _INBOX_gateway.>',
    `pub $JS.API.STREAM.INFO.${INTENT_EVENTS_STREAM}`,
    `pub $JS.API.CONSUMER.CREATE.${INTENT_EVENTS_STREAM}.intent-notifier`,
    `pub $JS.API.CONSUMER.MSG.NEXT.${INTENT_EVENTS_STREAM}.intent-notifier`,
    `pub $JS.API.STREAM.PURGE.${MEV_CAPTURE_STREAM}`,
    `pub $JS.API.STREAM.DELETE.${MEV_CAPTURE_DLQ_STREAM}`,
    `pub $JS.API.CONSUMER.DELETE.${MEV_CAPTURE_STREAM}.payout-service`,
    `pub ${orderflowHintSubject(1)}`,
    `sub ${ORDERFLOW_MEV}`,
  ],
  simulation: [
    `pub ${INTENT_CREATE}`,
    `pub ${SIMULATION_SIMULATE}`,
    `pub ${PAYOUT_TRANSITION}`,
    'pub mev.captured.1',
    'pub intent.events.completed',
    `sub ${INTENT_CREATE}`,
    `sub ${INTENT_NOTIFICATION_SECRET}`,
    'sub intent.events.>',
    'sub _INBOX_gateway.>',
    'pub $JS.API.INFO',
    `pub $JS.API.STREAM.INFO.${MEV_CAPTURE_STREAM}`,
    `sub ${ORDERFLOW_RPC}`,
  ],
  orderflow: [
    `pub ${INTENT_CREATE}`,
    `pub ${INTENT_NOTIFICATION_SECRET}`,
    `pub ${PAYOUT_TRANSITION}`,
    `pub ${PAYOUT_ENTRY_RECORD}`,
    `pub ${PAYOUT_SOURCE_GET}`,
    `pub ${MEV_CAPTURE_DLQ_SUBJECT}`,
    `pub ${SIMULATION_SIMULATE_STREAM}`,
    'pub intent.events.completed',
    `sub ${INTENT_CREATE}`,
    `sub ${PAYOUT_TREASURY}`,
    'sub mev.captured.>',
    'sub intent.events.>',
    `sub ${orderflowHintSubject(1)}`,
    'sub _INBOX_gateway.>',
    'sub _INBOX_payout.>',
    `pub $JS.API.CONSUMER.CREATE.${MEV_CAPTURE_STREAM}.payout-service`,
    `pub $JS.API.CONSUMER.MSG.NEXT.${MEV_CAPTURE_STREAM}.payout-service`,
    `pub $JS.API.STREAM.PURGE.${MEV_CAPTURE_STREAM}`,
    `pub $JS.API.STREAM.DELETE.${MEV_CAPTURE_STREAM}`,
    `pub $JS.API.STREAM.INFO.${INTENT_EVENTS_STREAM}`,
  ],
  'mev-capture': [
    `pub ${INTENT_CREATE}`,
    `pub ${PAYOUT_TRANSITION}`,
    `pub ${PAYOUT_ENTRY_RECORD}`,
    `pub ${MEV_CAPTURE_DLQ_SUBJECT}`,
    'pub intent.events.completed',
    `pub ${SIMULATION_SIMULATE}`,
    'sub mev.captured.>',
    'sub intent.events.>',
    'sub _INBOX_payout.>',
    'pub $JS.API.INFO',
    `pub $JS.API.STREAM.INFO.${MEV_CAPTURE_STREAM}`,
    `pub $JS.API.CONSUMER.MSG.NEXT.${MEV_CAPTURE_STREAM}.payout-service`,
    `pub $JS.API.STREAM.PURGE.${MEV_CAPTURE_STREAM}`,
    `pub ${ORDERFLOW_MEV}`,
    `pub ${orderflowHintSubject(1)}`,
  ],
};

/** A connection as one identity, collecting the server's permission errors. */
class Client {
  readonly violations: string[] = [];

  private constructor(
    readonly nc: NatsConnection,
    readonly env: NatsEnv,
  ) {
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'error') this.violations.push(s.error.message);
    })();
  }

  static async as(identity: Identity, url: string, tls: Partial<NatsEnv> = {}): Promise<Client> {
    const env = { ...plainNatsEnv(url), NATS_USER: identity, NATS_PASSWORD: PASSWORDS[identity], ...tls };
    return new Client(await connectNats(env, `perm-${identity}`), env);
  }

  /** Whether the server lets this identity do `op` (`pub SUBJECT` or `sub SUBJECT`). */
  async allowed(op: string): Promise<boolean> {
    const [kind, subject] = op.split(' ') as ['pub' | 'sub', string];
    const before = this.violations.length;
    if (kind === 'pub') this.nc.publish(subject, '{}');
    else this.nc.subscribe(subject, { callback: () => undefined });
    // The server answers a violation before the flush's PONG; its status event is delivered a turn later.
    await this.nc.flush();
    await new Promise((resolve) => setImmediate(resolve));
    const verb = kind === 'pub' ? 'Publish' : 'Subscription';
    return !this.violations.slice(before).some((v) => v === `Permissions Violation for ${verb} to "${subject}"`);
  }

  /** The violations since `allowed` last checked (a positive test expects none). */
  fresh(): string[] {
    return this.violations.slice(this.checked);
  }

  /** Forgets violations so far (those the denial checks provoke on purpose). */
  reset(): void {
    this.checked = this.violations.length;
  }

  private checked = 0;

  close(): Promise<void> {
    return this.nc.close();
  }
}

/** Answers every request on `subjects` in a queue group, `replies` messages each. */
function answer(client: Client, subjects: string[], replies = 1): void {
  for (const subject of subjects) {
    client.nc.subscribe(subject, {
      queue: 'perm-test',
      callback: (_err, msg) => {
        for (let i = 0; i < replies; i++) msg.respond(JSON.stringify({ subject, i }));
      },
    });
  }
}

describe('NATS identities (infra/nats/nats.conf as shipped)', () => {
  let server: TestNatsServer;
  const clients = {} as Record<Identity, Client>;

  beforeAll(async () => {
    server = await TestNatsServer.start({ config: CONFIG, env: SERVER_ENV });
    for (const identity of IDENTITIES) clients[identity] = await Client.as(identity, server.url);
  });
  afterAll(async () => {
    for (const c of Object.values(clients)) await c?.close().catch(() => undefined);
    await server?.dispose();
  });

  it('refuses a client without credentials, or with another identity’s password', async () => {
    await expect(connectNats(plainNatsEnv(server.url), 'anonymous')).rejects.toThrow('Authorization Violation');
    await expect(connectNats({ ...plainNatsEnv(server.url), NATS_USER: 'gateway', NATS_PASSWORD: PASSWORDS.intent }, 'wrong')).rejects.toThrow(
      'Authorization Violation',
    );
  });

  it('lets only the gateway send the public requests, each answered by its own service', async () => {
    answer(clients.intent, INTENT_REQUESTS);
    answer(clients.payout, PAYOUT_REQUESTS);
    answer(clients.simulation, SIMULATION_REQUESTS);
    answer(clients.orderflow, ORDERFLOW_REQUESTS);
    await Promise.all(IDENTITIES.map((i) => clients[i].nc.flush()));
    for (const subject of [...INTENT_REQUESTS, ...PAYOUT_REQUESTS, ...SIMULATION_REQUESTS, ...ORDERFLOW_REQUESTS]) {
      expect((await clients.gateway.nc.request(subject, '{}', { timeout: 2_000 })).json()).toEqual({ subject, i: 0 });
    }
    for (const identity of ['intent', 'payout', 'simulation', 'orderflow', 'mev-capture'] as const) {
      for (const subject of [...INTENT_REQUESTS, ...PAYOUT_REQUESTS, ...ORDERFLOW_REQUESTS])
        expect([identity, subject, await clients[identity].allowed(`pub ${subject}`)]).toEqual([identity, subject, false]);
      clients[identity].reset();
    }
    expect(clients.gateway.fresh()).toEqual([]);
  });

  it('lets the intent and payout services ask the simulation service, the stream form answered in several messages', async () => {
    answer(clients.simulation, [SIMULATION_SIMULATE_STREAM], 3);
    await clients.simulation.nc.flush();
    expect((await clients.payout.nc.request(SIMULATION_SIMULATE, '{}', { timeout: 2_000 })).json()).toEqual({ subject: SIMULATION_SIMULATE, i: 0 });
    expect((await clients.intent.nc.request(SIMULATION_SIMULATE, '{}', { timeout: 2_000 })).json()).toEqual({ subject: SIMULATION_SIMULATE, i: 0 });
    const many: number[] = [];
    for await (const m of await clients.intent.nc.requestMany(SIMULATION_SIMULATE_STREAM, '{}', { strategy: 'count', maxMessages: 3, maxWait: 2_000 })) {
      many.push(m.json<{ i: number }>().i);
    }
    expect(many).toEqual([0, 1, 2]);
    expect(clients.intent.fresh()).toEqual([]);
  });

  it('lets the orderflow service ask the payout treasury and the simulation service, and hint the gateway’s streams', async () => {
    answer(clients.payout, [PAYOUT_TREASURY]);
    await clients.payout.nc.flush();
    expect((await clients.orderflow.nc.request(PAYOUT_TREASURY, '{}', { timeout: 2_000 })).json()).toEqual({ subject: PAYOUT_TREASURY, i: 0 });
    expect((await clients.orderflow.nc.request(SIMULATION_SIMULATE, '{}', { timeout: 2_000 })).json()).toEqual({ subject: SIMULATION_SIMULATE, i: 0 });
    const hints = clients.gateway.nc.subscribe(orderflowHintSubject(1), { max: 1 });
    await clients.gateway.nc.flush();
    clients.orderflow.nc.publish(orderflowHintSubject(1), JSON.stringify({ hash: '0x01' }));
    for await (const m of hints) expect(m.json()).toEqual({ hash: '0x01' });
    expect(clients.orderflow.fresh()).toEqual([]);
    expect(clients.gateway.fresh()).toEqual([]);
  });

  it('lets the intent service run its outbox stream and notifier consumer, and the gateway follow the events live', async () => {
    const live = clients.gateway.nc.subscribe('intent.events.>', { max: 1 });
    await clients.gateway.nc.flush();
    // The outbox's own publisher: creates INTENT_EVENTS and publishes with the stream's ack.
    const env = { ...clients.intent.env, INTENT_EVENTS_MAX_AGE_HOURS: 1 } as IntentServiceEnv;
    const nats = new NatsConnections(env, 'intent-service');
    const publisher = new EventsPublisher(env, nats);
    await publisher.onModuleInit();
    try {
      await publisher.publish('intent.events.created', { id: 'e1' }, 'e1');
      await publisher.ensureStream();
    } finally {
      await nats.close();
    }
    for await (const m of live) expect(m.json()).toEqual({ id: 'e1' });

    const jsm = await jetstreamManager(clients.intent.nc);
    const stream = await jsm.streams.info(INTENT_EVENTS_STREAM);
    await jsm.streams.update(INTENT_EVENTS_STREAM, { ...stream.config, max_age: 2 * 3600 * 1e9 });
    await ensureConsumer(jsm, INTENT_EVENTS_STREAM, { durable_name: 'intent-notifier', ack_policy: AckPolicy.Explicit, max_deliver: 3, num_replicas: 1 });
    await ensureConsumer(jsm, INTENT_EVENTS_STREAM, { durable_name: 'intent-notifier', ack_policy: AckPolicy.Explicit, max_deliver: 5 }, ['max_deliver']);
    const consumer = await jetstream(clients.intent.nc).consumers.get(INTENT_EVENTS_STREAM, 'intent-notifier');
    const msg = await consumer.next({ expires: 2_000 });
    expect(msg?.json()).toEqual({ id: 'e1' });
    expect(await msg!.ackAck()).toBe(true);
    expect(clients.intent.fresh()).toEqual([]);
  });

  it('lets the capture publisher write MEV_CAPTURE, and only the payout service consume it and dead-letter', async () => {
    const jsm = await jetstreamManager(clients.payout.nc);
    for (const [name, subject] of [
      [MEV_CAPTURE_STREAM, MEV_CAPTURE_SUBJECTS],
      [MEV_CAPTURE_DLQ_STREAM, MEV_CAPTURE_DLQ_SUBJECT],
    ] as const) {
      expect(await ensureStream(jsm, { name, subjects: [subject], num_replicas: 1 })).toBe('created');
    }
    await ensureConsumer(jsm, MEV_CAPTURE_STREAM, { durable_name: 'payout-service', ack_policy: AckPolicy.Explicit, num_replicas: 1 });

    const ack = await jetstream(clients['mev-capture'].nc).publish('mev.captured.1', JSON.stringify({ id: 'capture-1' }), { msgID: 'capture-1' });
    expect(ack.stream).toBe(MEV_CAPTURE_STREAM);
    // The orderflow service publishes its auctions' captures the same way (and makes the stream if it is first).
    expect(
      await ensureStream(await jetstreamManager(clients.orderflow.nc), { name: MEV_CAPTURE_STREAM, subjects: [MEV_CAPTURE_SUBJECTS], num_replicas: 1 }),
    ).toBe('unchanged');
    const own = await jetstream(clients.orderflow.nc).publish('mev.captured.1', JSON.stringify({ id: 'capture-2' }), { msgID: 'capture-2' });
    expect(own.stream).toBe(MEV_CAPTURE_STREAM);

    const consumer = await jetstream(clients.payout.nc).consumers.get(MEV_CAPTURE_STREAM, 'payout-service');
    const msg = await consumer.next({ expires: 2_000 });
    expect(msg?.json()).toEqual({ id: 'capture-1' });
    expect((await jetstream(clients.payout.nc).publish(MEV_CAPTURE_DLQ_SUBJECT, '{}', { msgID: 'dlq-1' })).stream).toBe(MEV_CAPTURE_DLQ_STREAM);
    expect(await msg!.ackAck()).toBe(true);
    const second = await consumer.next({ expires: 2_000 });
    expect(second?.json()).toEqual({ id: 'capture-2' });
    expect(await second!.ackAck()).toBe(true);
    expect(clients.orderflow.fresh()).toEqual([]);
    expect(clients.payout.fresh()).toEqual([]);
    expect(clients['mev-capture'].fresh()).toEqual([]);

    // What another identity publishes on mev.captured.> never reaches the stream.
    for (const identity of ['gateway', 'intent', 'payout', 'simulation'] as const) {
      expect(await clients[identity].allowed('pub mev.captured.1')).toBe(false);
      clients[identity].reset();
    }
    expect((await jsm.streams.info(MEV_CAPTURE_STREAM)).state.messages).toBe(2);
  });

  it.each(IDENTITIES)('denies %s everything outside its role', async (identity) => {
    const outcomes = [];
    for (const op of DENIED[identity]) outcomes.push([op, await clients[identity].allowed(op)]);
    expect(outcomes).toEqual(DENIED[identity].map((op) => [op, false]));
  });
});

/** All the server says to a client that sends its credentials without starting TLS, until it hangs up. */
function plainTextAnswer(port: number, user: string, pass: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write(`CONNECT ${JSON.stringify({ user, pass, verbose: false })}\r\nPING\r\n`));
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

describe('NATS over TLS (a certificate the test makes)', () => {
  let dir: string;
  let server: TestNatsServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-tls-'));
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=tradeinfra test CA');
    openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '1',
      '-extfile',
      'san.ext',
    );
  });
  afterAll(async () => {
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the identities over TLS only, to clients that trust its CA', async () => {
    server = await TestNatsServer.start({
      config: CONFIG,
      env: SERVER_ENV,
      args: ['--tls', '--tlscert', join(dir, 'server.pem'), '--tlskey', join(dir, 'server.key')],
    });
    const gateway = await Client.as('gateway', server.url, { NATS_TLS_CA_FILE: join(dir, 'ca.pem') });
    const intent = await Client.as('intent', server.url, { NATS_TLS_CA_FILE: join(dir, 'ca.pem') });
    try {
      answer(intent, [INTENT_GET]);
      await intent.nc.flush();
      expect((await gateway.nc.request(INTENT_GET, '{}', { timeout: 2_000 })).json()).toEqual({ subject: INTENT_GET, i: 0 });
      expect(await gateway.allowed('pub mev.captured.1')).toBe(false);
    } finally {
      await gateway.close();
      await intent.close();
    }
    // A client that does not trust the CA gets no connection; nor does one that stays in plain text.
    await expect(Client.as('gateway', server.url, { NATS_TLS: true })).rejects.toThrow(/certificate/i);
    const plain = await plainTextAnswer(server.port, 'gateway', PASSWORDS.gateway);
    expect(plain).toMatch(/^INFO .*"tls_required":true/);
    expect(plain).not.toContain('PONG'); // the server hangs up instead of taking the credentials
  });
});
