import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, ConnectionError } from './errors.js';
import { IntentEventStream } from './events.js';
import { Transport } from './transport.js';

/**
 * The stream's reconnection rules against a local SSE server scripted per connection (the real
 * gateway, and a cut connection, are covered by test/e2e/sdk.spec.ts).
 */
describe('IntentEventStream', () => {
  let server: Server;
  let baseUrl: string;
  let script: Array<(res: ServerResponse) => void>;
  let requests: IncomingHttpHeaders[];
  const open = new Set<ServerResponse>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.headers);
      open.add(res);
      res.on('close', () => open.delete(res));
      const handler = script.length > 1 ? script.shift()! : script[0]!;
      handler(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    script = [];
    requests = [];
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const event = (id: string, type = 'created') =>
    `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ id, type, occurredAt: '2027-01-01T00:00:00.000Z', tenantId: 't', intent: { id: `intent-${id}` } })}\n\n`;
  const sse =
    (...chunks: string[]) =>
    (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.write(': connected\n\n');
      for (const chunk of chunks) res.write(chunk);
    };
  const thenEnd =
    (handler: (res: ServerResponse) => void) =>
    (res: ServerResponse): void => {
      handler(res);
      res.end();
    };
  const transport = () => new Transport({ baseUrl, apiKey: 'k' });

  it('yields the events, reconnects when the server ends the stream, and sends the last event id', async () => {
    script = [thenEnd(sse(event('e1'), event('e2', 'cancelled'))), sse(event('e3'))];
    const opened: boolean[] = [];
    const stream = new IntentEventStream(transport(), { backoff: { baseDelayMs: 10 }, onOpen: ({ reconnected }) => opened.push(reconnected) });
    const ids: string[] = [];
    for await (const e of stream) {
      ids.push(`${e.type}:${e.id}`);
      if (ids.length === 3) break;
    }
    expect(ids).toEqual(['created:e1', 'cancelled:e2', 'created:e3']);
    expect(opened).toEqual([false, true]);
    expect(requests[0]!.authorization).toBe('Bearer k');
    expect(requests[0]!.accept).toBe('text/event-stream');
    expect(requests[1]!['last-event-id']).toBe('e2');
  });

  it('replaces a connection that goes silent past idleTimeoutMs', async () => {
    script = [sse(), sse(event('after'))];
    const disconnects: unknown[] = [];
    const stream = new IntentEventStream(transport(), {
      idleTimeoutMs: 200,
      backoff: { baseDelayMs: 10 },
      onDisconnect: ({ error }) => disconnects.push(error),
    });
    const first = await stream.next();
    expect(first.value).toMatchObject({ id: 'after' });
    expect(disconnects).toHaveLength(1);
    expect(disconnects[0]).toBeInstanceOf(ConnectionError);
    expect(disconnects[0]).toMatchObject({ code: 'ETIMEDOUT' });
    await stream.return();
  });

  it('waits out a 429 (too many streams) as Retry-After says, but stops at once on a 401', async () => {
    const tooMany = (res: ServerResponse) =>
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
        .end(JSON.stringify({ error: true, name: 'RateLimited', message: 'At most 5 event streams', details: null }));
    script = [tooMany, sse(event('ok'))];
    const delays: number[] = [];
    const stream = new IntentEventStream(transport(), { onDisconnect: ({ delayMs }) => delays.push(delayMs) });
    expect((await stream.next()).value).toMatchObject({ id: 'ok' });
    expect(delays[0]).toBeGreaterThanOrEqual(1000);
    await stream.return();

    script = [
      (res) =>
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: true, name: 'Unauthorized', message: 'Invalid API key', details: null })),
    ];
    requests = [];
    const refused = new IntentEventStream(transport());
    const err = await refused.next().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, name: 'Unauthorized' });
    expect(requests).toHaveLength(1);
  });

  it('gives up after maxReconnectAttempts, and does not reconnect with reconnect: false', async () => {
    script = [
      (res) =>
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: true, name: 'ServiceUnavailable', message: 'down', details: null })),
    ];
    const limited = new IntentEventStream(transport(), { maxReconnectAttempts: 2, backoff: { baseDelayMs: 5 } });
    await expect(limited.next()).rejects.toMatchObject({ status: 503 });
    expect(requests).toHaveLength(3);

    script = [thenEnd(sse(event('only')))];
    requests = [];
    const once = new IntentEventStream(transport(), { reconnect: false });
    expect((await once.next()).value).toMatchObject({ id: 'only' });
    await expect(once.next()).rejects.toMatchObject({ code: 'ESTREAMCLOSED' });
    expect(requests).toHaveLength(1);
  });

  it('close() ends a pending next() and closes the connection', async () => {
    script = [sse()];
    const stream = new IntentEventStream(transport());
    const pending = stream.next();
    while (open.size === 0) await new Promise((r) => setImmediate(r));
    stream.close();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    while (open.size > 0) await new Promise((r) => setImmediate(r));
  });
});
