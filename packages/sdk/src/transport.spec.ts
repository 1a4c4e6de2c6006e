import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, ConnectionError } from './errors.js';
import { Transport, type RetryInfo } from './transport.js';

/**
 * The retry policy against a local HTTP server scripted per request (the real gateway's
 * behaviour is covered by test/e2e/sdk.spec.ts).
 */
describe('Transport retry policy', () => {
  let server: Server;
  let baseUrl: string;
  /** One handler per incoming request, in order; the last one repeats. */
  let script: Array<(res: ServerResponse) => void>;
  let seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }>;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const handler = script.length > 1 ? script.shift()! : script[0]!;
        handler(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    script = [];
    seen = [];
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json =
    (status: number, body: unknown, headers: Record<string, string> = {}) =>
    (res: ServerResponse) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
  const apiError = (status: number, name: string, headers: Record<string, string> = {}) =>
    json(status, { error: true, name, message: name, details: null }, headers);
  const hang = () => (_res: ServerResponse) => undefined;

  function transport(retries: RetryInfo[] = [], extra = {}) {
    return new Transport({ baseUrl, apiKey: 'secret-key', backoff: { baseDelayMs: 5, maxDelayMs: 20 }, onRetry: (i) => retries.push(i), ...extra });
  }

  it('sends the key as a Bearer token, JSON bodies with bigints as strings, and the same Idempotency-Key on every attempt', async () => {
    script = [apiError(503, 'ServiceUnavailable', { 'retry-after': '0' }), json(201, { id: 'x' })];
    const answer = await transport().request({ method: 'POST', path: '/v1/intent', body: { buyAmount: 10n ** 30n }, idempotent: true, idempotencyKey: 'k-1' });
    expect(answer).toMatchObject({ status: 201, data: { id: 'x' } });
    expect(seen).toHaveLength(2);
    for (const r of seen) {
      expect(r.headers.authorization).toBe('Bearer secret-key');
      expect(r.headers['idempotency-key']).toBe('k-1');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.body).toBe('{"buyAmount":"1000000000000000000000000000000"}');
    }
  });

  it('retries 429 and 503 for any request (nothing was applied), honouring Retry-After', async () => {
    const retries: RetryInfo[] = [];
    script = [apiError(429, 'RateLimited', { 'retry-after': '1' }), apiError(503, 'ServiceUnavailable'), json(200, { ok: true })];
    const started = Date.now();
    const answer = await transport(retries).request({ method: 'POST', path: '/v1/intent/x/cancel', idempotent: false });
    expect(answer.data).toEqual({ ok: true });
    expect(retries.map((r) => [r.status, r.retryAfterMs])).toEqual([
      [429, 1000],
      [503, null],
    ]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('retries a 504 only when the request is idempotent', async () => {
    script = [apiError(504, 'Timeout'), json(201, { id: 'x' })];
    await expect(transport().request({ method: 'POST', path: '/v1/intent', idempotent: true, idempotencyKey: 'k' })).resolves.toMatchObject({ status: 201 });
    script = [apiError(504, 'Timeout'), json(200, {})];
    seen = [];
    await expect(transport().request({ method: 'POST', path: '/v1/cashback/source/s/payout', idempotent: false })).rejects.toMatchObject({
      status: 504,
      name: 'Timeout',
    });
    expect(seen).toHaveLength(1);
  });

  it('never retries other errors', async () => {
    for (const [status, name] of [
      [400, 'ValidationError'],
      [401, 'Unauthorized'],
      [404, 'NotFound'],
      [409, 'Conflict'],
      [500, 'InternalError'],
    ] as const) {
      script = [apiError(status, name), json(200, {})];
      seen = [];
      const err = await transport()
        .request({ method: 'GET', path: '/v1/intent/x', idempotent: true })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status, name });
      expect(seen).toHaveLength(1);
    }
  });

  it('gives up after maxAttempts and throws the last error', async () => {
    const retries: RetryInfo[] = [];
    script = [apiError(503, 'ServiceUnavailable')];
    await expect(transport(retries, { maxAttempts: 3 }).request({ method: 'GET', path: '/v1/intent/x', idempotent: true })).rejects.toMatchObject({
      status: 503,
    });
    expect(seen).toHaveLength(3);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('does not wait out a Retry-After above maxRetryAfterMs', async () => {
    script = [apiError(429, 'RateLimited', { 'retry-after': '120' }), json(200, {})];
    const err = (await transport()
      .request({ method: 'GET', path: '/v1/intent/x', idempotent: true })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(seen).toHaveLength(1);
  });

  it('times out an attempt; retries it when idempotent, never when the request may have been applied', async () => {
    script = [hang(), json(200, { ok: true })];
    const retries: RetryInfo[] = [];
    await expect(transport(retries, { timeoutMs: 300 }).request({ method: 'GET', path: '/v1/intent/x', idempotent: true })).resolves.toMatchObject({
      data: { ok: true },
    });
    expect(retries[0]!.error).toMatchObject({ code: 'ETIMEDOUT', sent: true });

    script = [hang(), json(200, { ok: true })];
    seen = [];
    const err = await transport([], { timeoutMs: 300 })
      .request({ method: 'POST', path: '/v1/intent/x/cancel', idempotent: false })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: 'ETIMEDOUT', sent: true });
    expect(seen).toHaveLength(1);
  });

  it('stops at once when the caller aborts, also while waiting to retry', async () => {
    script = [apiError(503, 'ServiceUnavailable', { 'retry-after': '30' })];
    const controller = new AbortController();
    const retries: RetryInfo[] = [];
    const pending = transport(retries).request({ method: 'GET', path: '/v1/intent/x', idempotent: true, signal: controller.signal });
    while (retries.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('answers an HttpError for a non-API body, and returns accepted statuses as answers', async () => {
    script = [(res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>bad gateway</h1>')];
    await expect(transport().request({ method: 'GET', path: '/x', idempotent: true })).rejects.toMatchObject({ status: 502, name: 'HttpError' });
    script = [json(503, { status: 'unavailable' }, { 'retry-after': '1' })];
    seen = [];
    await expect(transport().request({ method: 'GET', path: '/ready', idempotent: true, accept: [503], maxAttempts: 1 })).resolves.toMatchObject({
      status: 503,
      data: { status: 'unavailable' },
    });
    expect(seen[0]!.headers.authorization).toBe('Bearer secret-key');
    await transport().request({ method: 'GET', path: '/ready', idempotent: true, accept: [503], anonymous: true });
    expect(seen[1]!.headers.authorization).toBeUndefined();
  });

  it('validates the base URL', () => {
    expect(() => new Transport({ baseUrl: 'ftp://x' })).toThrow(/http/);
    expect(() => new Transport({ baseUrl: '' })).toThrow(/baseUrl/);
  });
});
