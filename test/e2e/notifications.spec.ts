import { createHmac } from 'node:crypto';
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
    await eventually('created delivered after a retry', () => ok('created').length >= 2, 15_000);
    await eventually('cancelled delivered', () => ok('cancelled').length >= 1, 15_000);
    const [first, retry] = ok('created');
    expect(retry!.headers['x-notification-id']).toBe(first!.headers['x-notification-id']);

    const { secret } = (await stack.request('GET', '/v1/intents/notifications/secret', { key })).body;
    for (const r of [...ok('created'), ...ok('cancelled')]) {
      const expected = createHmac('sha256', secret).update(`${r.headers['x-notification-timestamp']}.${r.body}`).digest('hex');
      expect(r.headers['x-notification-signature']).toBe(`v1=${expected}`);
    }
    // Another tenant's secret does not verify it.
    const other = (await stack.request('GET', '/v1/intents/notifications/secret', { key: await stack.createKey() })).body.secret;
    expect(other).not.toBe(secret);
    expect(JSON.parse(ok('cancelled')[0]!.body).intent).toMatchObject({ id, status: 'cancelled' });
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
    await eventually('both events streamed', () => text.includes('event: cancelled'), 10_000);
    controller.abort();
    await read;
    const events = text
      .split('\n\n')
      .filter((block) => block.startsWith('id: '))
      .map((block) => JSON.parse(block.split('\n').find((l) => l.startsWith('data: '))!.slice(6)));
    expect(events.map((e) => [e.type, e.intent.id])).toEqual([
      ['created', mine.body.id],
      ['cancelled', mine.body.id],
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
