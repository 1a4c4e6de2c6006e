import { randomUUID } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { INTENT_HEALTH, INTENT_CREATE, INTENT_EVENTS_STREAM, type CreateIntentReply } from '@tradeinfra/contracts';
import { eventually } from '@tradeinfra/test-support';
import { createIntentService } from '../bootstrap.js';
import { NOTIFIER_CONSUMER } from '../notifications/notifier.js';
import { startIntentService, type IntentServiceHarness } from './harness.js';
import { HOSTILE_HOSTS, RecordingListener } from './recording-listener.js';

/**
 * The notifier on the real nats-server of this machine (Debian's 2.9.10: no `+TERM <reason>`):
 * delivery ends after NOTIFY_MAX_ATTEMPTS, and webhooks on local addresses are never called
 * unless WEBHOOK_ALLOW_PRIVATE is set.
 */
const body = (notificationWebhookUrl: string) => ({
  chainId: 1,
  wallet: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
  tokenAddress: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  bribe: '1',
  buyAmount: '1000',
  expiry: Math.floor(Date.now() / 1000) + 3600,
  notificationWebhookUrl,
});

/** The consumer has nothing left: every event delivered up to the stream's end, none waiting for an ack. */
async function drained(jsm: JetStreamManager): Promise<boolean> {
  const [stream, consumer] = await Promise.all([jsm.streams.info(INTENT_EVENTS_STREAM), jsm.consumers.info(INTENT_EVENTS_STREAM, NOTIFIER_CONSUMER)]);
  return consumer.num_pending === 0 && consumer.num_ack_pending === 0 && consumer.delivered.stream_seq >= stream.state.last_seq;
}

describe('notification delivery ends after NOTIFY_MAX_ATTEMPTS', () => {
  let h: IntentServiceHarness;
  let jsm: JetStreamManager;
  let hook: RecordingListener;

  beforeAll(async () => {
    hook = await new RecordingListener().start('127.0.0.1');
    hook.answer = { status: 500 };
    // First with the defaults (25 attempts): the consumer exists before the replica below changes it.
    h = await startIntentService({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', OUTBOX_POLL_INTERVAL_MS: '100' });
    jsm = await jetstreamManager(h.rpc.nc);
  });
  afterAll(async () => {
    await h?.close();
    await hook?.close();
  });

  it('sets max_deliver on the consumer, updating an existing one', async () => {
    expect((await jsm.consumers.info(INTENT_EVENTS_STREAM, NOTIFIER_CONSUMER)).config.max_deliver).toBe(25);
    await h.replicas.shift()!.close();
    h.replicas.push(await createIntentService({ ...h.env, NOTIFY_MAX_ATTEMPTS: 3, NOTIFY_BACKOFF_MS: 50 }, false));
    expect((await jsm.consumers.info(INTENT_EVENTS_STREAM, NOTIFIER_CONSUMER)).config.max_deliver).toBe(3);
  });

  it('a webhook that always answers 500 gets exactly 3 attempts, then nothing is left to deliver', async () => {
    const { intent } = await h.rpc.request<CreateIntentReply>(INTENT_CREATE, {
      tenantId: randomUUID(),
      idempotencyKey: null,
      body: body(`http://127.0.0.1:${hook.port}/hooks`),
    });
    await hook.requestCount(3);
    const attempts = hook.requests.filter((r) => JSON.parse(r.body).intent.id === intent.id);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.headers['x-notification-id'])).size).toBe(1);
    // The last attempt ended the message: the consumer holds nothing pending or unacknowledged,
    // so no further attempt can come.
    await eventually('the consumer drained', () => drained(jsm));
    const consumer = await jsm.consumers.info(INTENT_EVENTS_STREAM, NOTIFIER_CONSUMER);
    expect(consumer).toMatchObject({ num_pending: 0, num_ack_pending: 0, num_redelivered: 0 });
    expect(hook.requests.filter((r) => JSON.parse(r.body).intent.id === intent.id)).toHaveLength(3);
  });
});

describe('the notifier never calls a local webhook unless WEBHOOK_ALLOW_PRIVATE', () => {
  let h: IntentServiceHarness;
  let jsm: JetStreamManager;
  let hook: RecordingListener;
  /** Every local or private form (this machine's own addresses too), and a name resolving to loopback. */
  const hosts = () => [...HOSTILE_HOSTS, 'localhost'];
  const create = (url: string) => h.rpc.request<CreateIntentReply>(INTENT_CREATE, { tenantId: randomUUID(), idempotencyKey: null, body: body(url) });

  beforeAll(async () => {
    hook = await new RecordingListener().start('::');
    h = await startIntentService({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'false', OUTBOX_POLL_INTERVAL_MS: '100', NOTIFY_BACKOFF_MS: '50' });
    jsm = await jetstreamManager(h.rpc.nc);
  });
  afterAll(async () => {
    await h?.close();
    await hook?.close();
  });

  it('gives up every local target at once, without a single connection', async () => {
    for (const host of hosts()) await create(`http://${host}:${hook.port}/hooks`);
    await eventually('every notification handled', () => drained(jsm));
    expect(hook.connections).toBe(0);
  });

  it('with WEBHOOK_ALLOW_PRIVATE (local development), the same listener receives them', async () => {
    await h.replicas.shift()!.close();
    h.replicas.push(await createIntentService({ ...h.env, WEBHOOK_ALLOW_PRIVATE: true }, false));
    // Started is not yet subscribed on the server: wait until the new replica answers.
    await eventually('the new replica answers', () =>
      h.rpc.request(INTENT_HEALTH, {}).then(
        () => true,
        () => false,
      ),
    );
    const reachable = ['127.0.0.1', 'localhost', '[::1]', '[::ffff:127.0.0.1]', '[0:0:0:0:0:ffff:7f00:1]'];
    for (const host of reachable) await create(`http://${host}:${hook.port}/hooks`);
    await hook.requestCount(reachable.length);
    expect(hook.connections).toBeGreaterThan(0);
  });
});
