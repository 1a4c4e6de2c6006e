import { ConsoleLogger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { intentBody, randomWallet, Stack, TOKEN, WALLET, type HttpResponse } from './harness.js';

describe('gateway end to end: intents', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await Stack.start({ API_KEY_CACHE_TTL_MS: '200' });
    key = await stack.createKey();
  });
  afterAll(() => stack?.close());

  it('creates, fetches, searches and cancels an intent', async () => {
    const wallet = randomWallet();
    const created = await stack.request('POST', '/v1/intent', { key, body: intentBody({ wallet, maxSellTax: 0.25 }) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', wallet: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), maxSellTax: 0.25, tokenAddress: TOKEN });
    const id = created.body.id;

    const fetched = await stack.request('GET', `/v1/intent/${id}`, { key });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);

    const found = await stack.request('POST', '/v1/intents/search', { key, body: { addresses: [wallet.toUpperCase().replace('0X', '0x')] } });
    expect(found.status).toBe(200);
    expect(found.body).toEqual([created.body]);
    expect(found.headers.get('x-next-cursor')).toBeNull();

    const cancelled = await stack.request('POST', `/v1/intent/${id}/cancel`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');

    const again = await stack.request('POST', `/v1/intent/${id}/cancel`, { key });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: true, name: 'Conflict' });

    const pendingOnly = await stack.request('POST', '/v1/intents/search', { key, body: { addresses: [wallet] } });
    expect(pendingOnly.body).toEqual([]);
    const cancelledToo = await stack.request('POST', '/v1/intents/search', { key, body: { addresses: [wallet], status: ['pending', 'cancelled'] } });
    expect(cancelledToo.body.map((i: { id: string }) => i.id)).toEqual([id]);
  });

  it('keeps tenants apart: another tenant’s intent is a 404 and never shows in its search', async () => {
    const other = await stack.createKey();
    const wallet = randomWallet();
    const mine = await stack.request('POST', '/v1/intent', { key, body: intentBody({ wallet }) });
    expect((await stack.request('GET', `/v1/intent/${mine.body.id}`, { key: other })).status).toBe(404);
    expect((await stack.request('POST', `/v1/intent/${mine.body.id}/cancel`, { key: other })).status).toBe(404);
    expect((await stack.request('POST', '/v1/intents/search', { key: other, body: { addresses: [wallet] } })).body).toEqual([]);
    const unknown = await stack.request('GET', `/v1/intent/${randomUUID()}`, { key: other });
    expect(unknown.status).toBe(404);
    expect(unknown.body.name).toBe('NotFound');
    // A second key of the same tenant sees it.
    const tenant = `t-${randomUUID()}`;
    const a = await stack.createKey({ tenant });
    const b = await stack.createKey({ tenant });
    const shared = await stack.request('POST', '/v1/intent', { key: a, body: intentBody() });
    expect((await stack.request('GET', `/v1/intent/${shared.body.id}`, { key: b })).status).toBe(200);
  });

  it('makes one intent of 50 parallel creates with one Idempotency-Key, and 409s another body', async () => {
    const wallet = randomWallet();
    const idem = randomUUID();
    const body = intentBody({ wallet });
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => stack.request('POST', '/v1/intent', { key, body, headers: { 'idempotency-key': idem } })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(replies.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(49);
    const listed = await stack.request('POST', '/v1/intents/search', { key, body: { addresses: [wallet] } });
    expect(listed.body).toHaveLength(1);

    // Same body in another key order and address case: still the same request.
    const reordered = Object.fromEntries(Object.entries({ ...body, wallet: wallet.toLowerCase() }).reverse());
    const replay = await stack.request('POST', '/v1/intent', { key, body: reordered, headers: { 'idempotency-key': idem } });
    expect(replay.body.id).toBe(replies[0]!.body.id);

    const conflict = await stack.request('POST', '/v1/intent', { key, body: { ...body, bribe: '1' }, headers: { 'idempotency-key': idem } });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ error: true, name: 'Conflict', message: expect.stringContaining('Idempotency-Key') });
    expect((await stack.request('POST', '/v1/intents/search', { key, body: { addresses: [wallet] } })).body).toHaveLength(1);
  });

  it('pages newest first with x-next-cursor, stable while other clients insert', async () => {
    const wallets = [randomWallet(), randomWallet()];
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      const res = await stack.request('POST', '/v1/intent', { key, body: intentBody({ wallet: wallets[i % 2] }) });
      ids.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const [page]: HttpResponse[] = await Promise.all([
        stack.request('POST', '/v1/intents/search', { key, body: { addresses: wallets, limit: 5, ...(cursor ? { cursor } : {}) } }),
        // Concurrent inserts for the same wallets while paging.
        stack.request('POST', '/v1/intent', { key, body: intentBody({ wallet: wallets[0] }) }),
      ]);
      expect(page.status).toBe(200);
      seen.push(...page.body.map((i: { id: string }) => i.id));
      cursor = page.headers.get('x-next-cursor');
      pages++;
    } while (cursor && pages < 50);
    // Everything created before paging began, exactly once, newest first; inserts made while
    // paging are newer than the first page and so never appear on a later one.
    const before = seen.filter((id) => ids.includes(id));
    expect(before).toEqual([...ids].reverse());
    expect(new Set(seen).size).toBe(seen.length);

    const bad = await stack.request('POST', '/v1/intents/search', { key, body: { addresses: wallets, cursor: 'garbage' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ path: 'cursor', message: 'must be the x-next-cursor value of the previous page' }]);
  });

  it('holds one NATS connection per process: the transport, publishers, consumers and clients share it', async () => {
    const counts = await stack.nats.connectionsByName();
    expect(Object.fromEntries(['gateway', 'intent-service', 'simulation-service', 'payout-service', 'orderflow-service'].map((n) => [n, counts[n]]))).toEqual({
      gateway: 1,
      'intent-service': 1,
      'simulation-service': 1,
      'payout-service': 1,
      'orderflow-service': 1,
    });
  });

  it('lets exactly one of 25 concurrent cancels win', async () => {
    const created = await stack.request('POST', '/v1/intent', { key, body: intentBody() });
    const results = await Promise.all(Array.from({ length: 25 }, () => stack.request('POST', `/v1/intent/${created.body.id}/cancel`, { key })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(24);
  });

  it('expires a pending intent within 5 seconds of its expiry', async () => {
    const expiry = Math.floor(Date.now() / 1000) + 1;
    const created = await stack.request('POST', '/v1/intent', { key, body: intentBody({ expiry, wallet: WALLET }) });
    expect(created.status).toBe(201);
    let status = created.body.status;
    while (status === 'pending' && Date.now() < (expiry + 6) * 1000) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await stack.request('GET', `/v1/intent/${created.body.id}`, { key })).body.status;
    }
    expect(status).toBe('expired');
    const fetched = await stack.request('GET', `/v1/intent/${created.body.id}`, { key });
    expect(new Date(fetched.body.updatedAt).getTime()).toBeLessThanOrEqual((expiry + 5) * 1000);
    expect((await stack.request('POST', `/v1/intent/${created.body.id}/cancel`, { key })).status).toBe(409);
  });
});

describe('request ids', () => {
  let stack: Stack;
  afterAll(() => stack?.close());

  it('carries the client’s x-request-id over NATS into the intent service’s logs', async () => {
    stack = await Stack.start();
    const lines: string[] = [];
    const capture = new ConsoleLogger({ logLevels: ['log', 'warn', 'error'] });
    capture.log = (message: unknown) => void lines.push(String(message));
    // Only the capturing replica serves requests.
    await stack.addIntentReplica(capture, { LOG_REQUESTS: 'true' });
    await stack.intentReplicas.shift()!.close();
    const key = await stack.createKey();
    const res = await stack.request('POST', '/v1/intent', { key, body: intentBody(), headers: { 'x-request-id': 'trace-abc.123' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('trace-abc.123');
    expect(lines.some((l) => l.includes('intent.create') && l.includes('request=trace-abc.123') && l.includes('ok'))).toBe(true);
  });
});
