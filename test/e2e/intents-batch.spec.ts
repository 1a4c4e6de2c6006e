import { connect, type NatsConnection } from '@nats-io/transport-node';
import { INTENT_EVENTS_STREAM, type IntentEvent } from '@tradeinfra/contracts';
import { eventually, StreamCollector } from '@tradeinfra/test-support';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { intentBody, randomWallet, Stack } from './harness.js';

/** Merkle's batch create and bulk cancel, over HTTP, on the whole product. */
describe('gateway end to end: batch create and bulk cancel', () => {
  let stack: Stack;
  let key: string;
  let nc: NatsConnection;
  let events: StreamCollector<IntentEvent>;
  let receiver: Server;
  let hookUrl: string;
  const received: { headers: IncomingHttpHeaders; body: any }[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(body) });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    stack = await Stack.start({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', OUTBOX_POLL_INTERVAL_MS: '100' });
    key = await stack.createKey();
    nc = await connect({ servers: stack.nats.url });
    events = await StreamCollector.start<IntentEvent>(nc, INTENT_EVENTS_STREAM);
  });
  afterAll(async () => {
    await events?.stop();
    await nc?.close();
    await stack?.close();
    receiver?.close();
  });

  const search = async (wallet: string, status = ['pending', 'cancelled']) =>
    (await stack.request('POST', '/v1/intents/search', { key, body: { addresses: [wallet], status } })).body as { id: string }[];

  it('creates a batch and answers the records in request order', async () => {
    const wallet = randomWallet();
    const items = ['5', '1', '4', '2', '3'].map((n) => intentBody({ wallet, buyAmount: n }));
    const res = await stack.request('POST', '/v1/intents', { key, body: items });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body.map((i: { buyAmount: string; status: string }) => [i.buyAmount, i.status])).toEqual(['5', '1', '4', '2', '3'].map((n) => [n, 'pending']));
    for (const record of res.body) {
      const fetched = await stack.request('GET', `/v1/intent/${record.id}`, { key });
      expect(fetched.body).toEqual(record);
    }
    expect((await search(wallet)).map((i) => i.id).sort()).toEqual(res.body.map((i: { id: string }) => i.id).sort());
  });

  it('is all or nothing: one bad item is a 400 naming it by index, and nothing is stored', async () => {
    const wallet = randomWallet();
    const items = [intentBody({ wallet }), intentBody({ wallet }), intentBody({ wallet }), intentBody({ wallet, buyAmount: '1.5' })];
    const res = await stack.request('POST', '/v1/intents', { key, body: items });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: true, name: 'ValidationError' });
    expect(res.body.details).toEqual([{ path: '3.buyAmount', message: 'must be wei as a decimal integer string (digits only, no sign, no leading zeros)' }]);
    // A chain the intent service does not run passes the gateway's shape check; the service refuses the batch.
    const chain = await stack.request('POST', '/v1/intents', { key, body: [intentBody({ wallet }), intentBody({ wallet, chainId: 10 })] });
    expect(chain.status).toBe(400);
    expect(chain.body.details.map((d: { path: string }) => d.path)).toEqual(['1.chainId']);
    expect(await search(wallet)).toEqual([]);
  });

  it('refuses 101 intents, an empty array and an object, and takes 100 large ones (body above the 64 KiB default)', async () => {
    const wallet = randomWallet();
    const tooMany = await stack.request('POST', '/v1/intents', { key, body: Array.from({ length: 101 }, () => intentBody({ wallet })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details).toEqual([{ path: '', message: 'must hold at most 100 intents (it holds 101); split the batch' }]);
    expect((await stack.request('POST', '/v1/intents', { key, body: [] })).status).toBe(400);
    const single = await stack.request('POST', '/v1/intents', { key, body: intentBody({ wallet }) });
    expect(single.status).toBe(400);
    expect(single.body.details).toEqual([{ path: '', message: 'body must be a JSON array' }]);
    expect(await search(wallet)).toEqual([]);

    const url = `https://signer.example.com/${'a'.repeat(2000)}`;
    const big = Array.from({ length: 100 }, (_, i) => intentBody({ wallet, buyAmount: String(i + 1), webhookUrl: url }));
    expect(JSON.stringify(big).length).toBeGreaterThan(200_000);
    const res = await stack.request('POST', '/v1/intents', { key, body: big });
    expect(res.status).toBe(201);
    expect(res.body.map((i: { buyAmount: string }) => i.buyAmount)).toEqual(big.map((b) => b.buyAmount));
    expect(res.body[99].webhookUrl).toBe(url);
  });

  it('replays a batch for the same Idempotency-Key and body, and 409s another body', async () => {
    const wallet = randomWallet();
    const idem = randomUUID();
    const items = [intentBody({ wallet, buyAmount: '7' }), intentBody({ wallet, buyAmount: '8' })];
    const first = await stack.request('POST', '/v1/intents', { key, body: items, headers: { 'idempotency-key': idem } });
    expect(first.status).toBe(201);
    const again = await stack.request('POST', '/v1/intents', { key, body: items, headers: { 'idempotency-key': idem } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await stack.request('POST', '/v1/intents', { key, body: [items[1], items[0]], headers: { 'idempotency-key': idem } });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: true, name: 'Conflict', message: expect.stringContaining('Idempotency-Key') });
    expect(await search(wallet)).toHaveLength(2);
  });

  it('bulk cancels with DELETE: one entry per id in order, each cancelled intent with exactly one event and one notification', async () => {
    const wallet = randomWallet();
    const created = await stack.request('POST', '/v1/intents', {
      key,
      body: Array.from({ length: 6 }, () => intentBody({ wallet, notificationWebhookUrl: hookUrl })),
    });
    const [a, b, alreadyCancelled, executing, completed, c] = created.body.map((i: { id: string }) => i.id) as string[];
    expect((await stack.request('POST', `/v1/intent/${alreadyCancelled}/cancel`, { key })).status).toBe(200);
    // Its buy was submitted (as the executor leaves it): the chain decides, nobody cancels it.
    await stack.db.query(
      `UPDATE intent.intents SET phase = 'submitted', tx_hash = $2, signed_tx = '0x02', tx_nonce = 0, target_block = 1, submitted_at = now() WHERE id = $1`,
      [executing, `0x${'cd'.repeat(32)}`],
    );
    await stack.db.query(`UPDATE intent.intents SET status = 'completed', executed_at = now() WHERE id = $1`, [completed]);
    const theirs = (await stack.request('POST', '/v1/intents', { key: await stack.createKey(), body: [intentBody()] })).body[0].id;
    const unknown = randomUUID();

    const ids = [c, unknown, a, alreadyCancelled, theirs, executing, completed, b!.toUpperCase()];
    const res = await stack.request('DELETE', '/v1/intents', { key, body: { ids } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: c, status: 'cancelled', cancelled: true, reason: null },
      { id: unknown, status: null, cancelled: false, reason: 'not_found' },
      { id: a, status: 'cancelled', cancelled: true, reason: null },
      { id: alreadyCancelled, status: 'cancelled', cancelled: false, reason: 'not_pending' },
      { id: theirs, status: null, cancelled: false, reason: 'not_found' },
      { id: executing, status: 'pending', cancelled: false, reason: 'executing' },
      { id: completed, status: 'completed', cancelled: false, reason: 'not_pending' },
      { id: b, status: 'cancelled', cancelled: true, reason: null },
    ]);
    expect((await stack.request('GET', `/v1/intent/${theirs}`, { key })).status).toBe(404);

    // Events: exactly one `cancelled` each for the four cancelled (three now, one before), none for the others.
    const cancelledIds = [a, b, c, alreadyCancelled] as string[];
    const cancelEvents = () => events.data.filter((e) => e.intent.status === 'cancelled');
    await eventually('cancelled events in the stream', () => cancelledIds.every((id) => cancelEvents().some((e) => e.intent.id === id)), 15_000);
    // A later cancel as a marker: once its notification is in, every earlier one has had its chance.
    const marker = (await stack.request('POST', '/v1/intent', { key, body: intentBody({ notificationWebhookUrl: hookUrl }) })).body.id;
    await stack.request('DELETE', '/v1/intents', { key, body: { ids: [marker] } });
    const hooks = (id: string) => received.filter((r) => r.body.intent?.id === id && r.body.intent?.status === 'cancelled');
    await eventually('marker notified', () => hooks(marker).length === 1 && cancelEvents().some((e) => e.intent.id === marker), 15_000);
    await eventually('notifications delivered', () => cancelledIds.every((id) => hooks(id).length >= 1), 15_000);
    for (const id of cancelledIds) {
      expect(cancelEvents().filter((e) => e.intent.id === id)).toHaveLength(1);
      expect(hooks(id)).toHaveLength(1);
    }
    for (const id of [executing, completed, theirs]) expect(cancelEvents().filter((e) => e.intent.id === id)).toHaveLength(0);
  });

  it('answers the same on POST /v1/intents/cancel, and refuses repeats, 501 ids, no body and read-only keys', async () => {
    const wallet = randomWallet();
    const created = await stack.request('POST', '/v1/intents', { key, body: [intentBody({ wallet }), intentBody({ wallet })] });
    const [x, y] = created.body.map((i: { id: string }) => i.id) as [string, string];
    const res = await stack.request('POST', '/v1/intents/cancel', { key, body: { ids: [y, x] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: y, status: 'cancelled', cancelled: true, reason: null },
      { id: x, status: 'cancelled', cancelled: true, reason: null },
    ]);
    const again = await stack.request('POST', '/v1/intents/cancel', { key, body: { ids: [x] } });
    expect(again.body).toEqual([{ id: x, status: 'cancelled', cancelled: false, reason: 'not_pending' }]);

    const repeat = await stack.request('DELETE', '/v1/intents', { key, body: { ids: [x, y, x.toUpperCase()] } });
    expect(repeat.status).toBe(400);
    expect(repeat.body.details).toEqual([{ path: 'ids.2', message: 'repeats ids.0: name each intent once' }]);
    const tooMany = await stack.request('POST', '/v1/intents/cancel', { key, body: { ids: Array.from({ length: 501 }, () => randomUUID()) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details).toEqual([{ path: 'ids', message: 'must hold 1 to 500 intent ids' }]);
    const none = await stack.request('DELETE', '/v1/intents', { key });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe(true);

    const reader = await stack.createKey({ scopes: ['intents:read'] });
    for (const [method, path, body] of [
      ['DELETE', '/v1/intents', { ids: [x] }],
      ['POST', '/v1/intents/cancel', { ids: [x] }],
      ['POST', '/v1/intents', [intentBody()]],
    ] as const) {
      const refused = await stack.request(method, path, { key: reader, body });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: true, name: 'Forbidden', details: { requiredScope: 'intents:write' } });
    }
  });
});
