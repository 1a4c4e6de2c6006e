import { connect } from '@nats-io/transport-node';
import { INTENT_EVENTS_STREAM, type IntentEvent } from '@tradeinfra/contracts';
import { eventually, StreamCollector } from '@tradeinfra/test-support';
import { intentBody, Stack } from './harness.js';

/** Reads the whole stream from a fresh connection. */
async function streamContents(url: string, expectAtLeast: number): Promise<{ msgId: string | undefined; data: IntentEvent }[]> {
  const nc = await connect({ servers: url });
  const collector = await StreamCollector.start<IntentEvent>(nc, INTENT_EVENTS_STREAM);
  try {
    await eventually(`${expectAtLeast} events in the stream`, () => collector.messages.length >= expectAtLeast);
    return [...collector.messages];
  } finally {
    await collector.stop();
    await nc.close();
  }
}

describe('transactional outbox across a NATS outage', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await Stack.start({ OUTBOX_POLL_INTERVAL_MS: '100', EXPIRY_SWEEP_INTERVAL_MS: '200' });
    key = await stack.createKey();
  });
  afterAll(() => stack?.close());

  it('keeps status changes made while NATS is down and publishes them, once each, when it is back', async () => {
    const expiry = Math.floor(Date.now() / 1000) + 2;
    const created = await stack.request('POST', '/v1/intent', { key, body: intentBody({ expiry }) });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const unpublished = () => stack.db.query(`SELECT type FROM intent.outbox WHERE published_at IS NULL AND intent->>'id' = $1`, [id]);
    await eventually('created event relayed', async () => (await unpublished()).length === 0);

    await stack.nats.stop();
    // With NATS gone the sweeper still expires the intent; its event waits in the outbox.
    await eventually('expired while NATS is down', async () => (await unpublished()).some((r) => r.type === 'expired'), 8_000);
    const [row] = await stack.db.query(`SELECT status FROM intent.intents WHERE id = $1`, [id]);
    expect(row!.status).toBe('expired');

    await stack.nats.restart();
    await eventually('outbox drained after NATS came back', async () => (await unpublished()).length === 0, 15_000);
    const events = (await streamContents(stack.nats.url, 2)).filter((m) => m.data.intent.id === id);
    expect(events.map((m) => m.data.event)).toEqual(['created', 'expired']);
    expect(events.map((m) => m.data.type)).toEqual(['intent_created', 'intent_expired']);
    for (const m of events) expect(m.msgId).toBe(m.data.id);
    expect(events[1]!.data.intent.status).toBe('expired');

    // The gateway and the service reconnected too.
    await eventually('ready again', async () => (await stack.request('GET', '/ready')).status === 200);
    expect((await stack.request('GET', `/v1/intent/${id}`, { key })).body.status).toBe('expired');
  });

  it('answers 503 while NATS (so every intent-service replica) is unreachable', async () => {
    await stack.nats.stop();
    try {
      const res = await stack.request('GET', '/ready');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.body.checks).toMatchObject({ database: 'up', nats: 'down' });
      expect(res.body.failing).toEqual(['nats', 'intent-service', 'simulation-service', 'payout-service', 'orderflow-service']);
      const create = await stack.request('POST', '/v1/intent', { key, body: intentBody() });
      expect([503, 504]).toContain(create.status);
      expect(create.body.error).toBe(true);
    } finally {
      await stack.nats.restart();
    }
    await eventually('ready again', async () => (await stack.request('GET', '/ready')).status === 200);
  });
});
