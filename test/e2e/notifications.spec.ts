import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@tradeinfra/test-support';
import { intentBody, Stack } from './harness.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

describe('intent notifications', () => {
  let stack: Stack;
  let receiver: Server;
  let hookUrl: string;
  const received: Received[] = [];
  let failFirst = true;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        // The first attempt fails: delivery must be retried.
        res.statusCode = failFirst ? 503 : 204;
        failFirst = false;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    stack = await Stack.start({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', OUTBOX_POLL_INTERVAL_MS: '100' });
  });
  afterAll(async () => {
    await stack?.close();
    receiver?.close();
  });

  it('delivers every status change to the webhook, signed, retrying failures', async () => {
    const key = await stack.createKey();
    const created = await stack.request('POST', '/v1/intent', { key, body: intentBody({ notificationWebhookUrl: hookUrl }) });
    expect(created.status).toBe(201);
    expect(created.body.notificationWebhookUrl).toBe(hookUrl);
    const id = created.body.id;
    await stack.request('POST', `/v1/intent/${id}/cancel`, { key });

    const ok = (type: string) => received.filter((r) => JSON.parse(r.body).type === type && JSON.parse(r.body).intent.id === id);
    await eventually('created delivered after a retry', () => ok('intent_created').length >= 2, 15_000);
    await eventually('cancelled delivered', () => ok('intent_cancelled').length >= 1, 15_000);
    const [first, retry] = ok('intent_created');
    expect(retry!.headers['x-notification-id']).toBe(first!.headers['x-notification-id']);

    const { secret } = (await stack.request('GET', '/v1/intents/notifications/secret', { key })).body;
    for (const r of [...ok('intent_created'), ...ok('intent_cancelled')]) {
      const expected = createHmac('sha256', secret).update(`${r.headers['x-notification-timestamp']}.${r.body}`).digest('hex');
      expect(r.headers['x-notification-signature']).toBe(`v1=${expected}`);
    }
    // Another tenant's secret does not verify it.
    const other = (await stack.request('GET', '/v1/intents/notifications/secret', { key: await stack.createKey() })).body.secret;
    expect(other).not.toBe(secret);
    expect(JSON.parse(ok('intent_cancelled')[0]!.body).intent).toMatchObject({ id, status: 'cancelled' });
    // Merkle's fields beside ours.
    expect(JSON.parse(first!.body)).toMatchObject({
      intentId: id,
      chainId: created.body.chainId,
      type: 'intent_created',
      reason: 'created',
      data: {},
      event: 'created',
    });
    expect(JSON.parse(ok('intent_cancelled')[0]!.body)).toMatchObject({
      intentId: id,
      type: 'intent_cancelled',
      reason: 'cancelled',
      data: {},
      event: 'cancelled',
    });
  });

  it('gives the signing secret to intents:write keys only, never cached', async () => {
    const tenant = `tenant-${randomUUID()}`;
    const writer = await stack.createKey({ scopes: ['intents:write'], tenant });
    const reader = await stack.createKey({ scopes: ['intents:read'], tenant });
    for (const [method, path] of [
      ['GET', '/v1/intents/notifications/secret'],
      ['POST', '/v1/intents/notifications/secret/rotate'],
    ] as const) {
      const refused = await stack.request(method, path, { key: reader });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: true, name: 'Forbidden', details: { requiredScope: 'intents:write' } });
    }
    const res = await stack.request('GET', '/v1/intents/notifications/secret', { key: writer });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.secret).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a tenant rotates its secret: every key of the tenant gets the new one, the next notifications are signed with it', async () => {
    const tenant = `tenant-${randomUUID()}`;
    const key = await stack.createKey({ tenant });
    const sameTenant = await stack.createKey({ tenant });
    const other = await stack.createKey();
    const secretOf = async (k: string) => (await stack.request('GET', '/v1/intents/notifications/secret', { key: k })).body.secret as string;
    const [old, othersBefore] = [await secretOf(key), await secretOf(other)];

    const rotated = await stack.request('POST', '/v1/intents/notifications/secret/rotate', { key });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const fresh = rotated.body.secret as string;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(old);
    expect(await secretOf(key)).toBe(fresh);
    expect(await secretOf(sameTenant)).toBe(fresh);
    expect(await secretOf(other)).toBe(othersBefore);
    expect((await stack.request('POST', '/v1/intents/notifications/secret/rotate', { key, body: { secret: 'mine' } })).status).toBe(400);

    const created = await stack.request('POST', '/v1/intent', { key, body: intentBody({ notificationWebhookUrl: hookUrl }) });
    expect(created.status).toBe(201);
    await eventually(
      'created delivered',
      () => received.some((r) => r.headers['x-notification-id'] && JSON.parse(r.body).intent.id === created.body.id),
      15_000,
    );
    const delivery = received.find((r) => JSON.parse(r.body).intent.id === created.body.id)!;
    const signature = (secret: string) =>
      `v1=${createHmac('sha256', secret).update(`${delivery.headers['x-notification-timestamp']}.${delivery.body}`).digest('hex')}`;
    expect(delivery.headers['x-notification-signature']).toBe(signature(fresh));
    expect(delivery.headers['x-notification-signature']).not.toBe(signature(old));
  });

  it('refuses a webhook URL that is not http(s)', async () => {
    const key = await stack.createKey();
    const res = await stack.request('POST', '/v1/intent', { key, body: intentBody({ notificationWebhookUrl: 'ftp://example.com/x' }) });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('notificationWebhookUrl');
  });

  it('streams a tenant’s own status changes as server-sent events', async () => {
    const key = await stack.createKey();
    const other = await stack.createKey();
    const controller = new AbortController();
    const res = await fetch(`${stack.baseUrl}/v1/intents/events`, { headers: { 'x-api-key': key }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const read = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += Buffer.from(value).toString();
      }
    })().catch(() => undefined);
    await eventually('stream open', () => text.includes(': connected'));
    const foreign = await stack.request('POST', '/v1/intent', { key: other, body: intentBody() });
    const mine = await stack.request('POST', '/v1/intent', { key, body: intentBody() });
    await stack.request('POST', `/v1/intent/${mine.body.id}/cancel`, { key });
    await eventually('both events streamed', () => text.includes('event: intent_cancelled'), 10_000);
    controller.abort();
    await read;
    const events = text
      .split('\n\n')
      .filter((block) => block.startsWith('id: '))
      .map((block) =>
        JSON.parse(
          block
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6),
        ),
      );
    expect(events.map((e) => [e.type, e.intentId, e.intent.id])).toEqual([
      ['intent_created', mine.body.id, mine.body.id],
      ['intent_cancelled', mine.body.id, mine.body.id],
    ]);
    expect(text).not.toContain(foreign.body.id);
  });

  it('caps the event streams one key holds open', async () => {
    const key = await stack.createKey();
    const open = (signal: AbortSignal) => fetch(`${stack.baseUrl}/v1/intents/events`, { headers: { 'x-api-key': key }, signal });
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const streams = await Promise.all(controllers.map((c) => open(c.signal)));
    expect(streams.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await stack.request('GET', '/v1/intents/events', { key });
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('retry-after')).toBe('5');
    controllers[0]!.abort();
    await eventually('a slot is free again', async () => {
      const c = new AbortController();
      const res = await open(c.signal);
      c.abort();
      return res.status === 200;
    });
    for (const c of controllers) c.abort();
  });
});
