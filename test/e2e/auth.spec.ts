import { within } from '@tradeinfra/test-support';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Scope } from '../../apps/gateway/src/auth/scopes.js';
import { intentBody, randomWallet, Stack, type HttpResponse, type RequestOptions } from './harness.js';

const ROOT = join(import.meta.dirname, '..', '..');

/*
 * Authentication, authorisation, limits and the operational endpoints of the gateway, written
 * from DESIGN.md (Gateway, Errors): every /v1 route needs a key (`x-api-key: KEY` or
 * `Authorization: Bearer KEY` or `Authorization: Token KEY`); missing/unknown/revoked → 401 Unauthorized; a key lacking the
 * scope → 403 Forbidden; per-key rate limit → 429 RateLimited with Retry-After; every response
 * carries x-request-id.
 */

const STACK_FRAME = /(\n\s+at\s)|(\bat\s+\S+\s+\([^)]*:\d+:\d+\))|(\bat\s+(file:\/\/)?\/\S+:\d+:\d+)/;
const LEAKS = ['SELECT', 'INSERT', 'node_modules', 'QueryFailedError', '/work/'];

function expectErrorObject(res: HttpResponse, status: number, name: string): void {
  // Status and body together, so a failure shows what came back.
  expect(`${res.status} ${res.text.slice(0, 800)}`).toMatch(new RegExp(`^${status} `));
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(res.body).toEqual(expect.objectContaining({ error: true, name, message: expect.any(String) }));
  expect(res.body).toHaveProperty('details');
  expect(res.text).not.toMatch(STACK_FRAME);
  for (const leak of LEAKS) expect(res.text).not.toContain(leak);
  expect(res.headers.get('x-request-id')).toBeTruthy();
}

/** Polls `probe` every 50 ms until it returns true; fails after `ms`. */
async function until(what: string, probe: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Route = 'create' | 'get' | 'search' | 'cancel';
const ROUTES: Route[] = ['create', 'get', 'search', 'cancel'];

describe('gateway auth, limits and operational endpoints', () => {
  let stack: Stack;
  let writer: string;
  const tenant = `t-${randomUUID()}`;

  const req = (method: string, path: string, options: RequestOptions = {}) => within(stack.request(method, path, options), 10_000, `${method} ${path}`);

  async function intentCount(): Promise<number> {
    const [{ n }] = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM intent.intents');
    return n;
  }

  async function createIntent(key = writer): Promise<string> {
    const res = await req('POST', '/v1/intent', { key, body: intentBody({ wallet: randomWallet() }) });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  /** Calls `route` with `options` (no key unless given); `id` is an intent of the shared tenant. */
  function call(route: Route, id: string, options: RequestOptions = {}): Promise<HttpResponse> {
    switch (route) {
      case 'create':
        return req('POST', '/v1/intent', { body: intentBody(), ...options });
      case 'get':
        return req('GET', `/v1/intent/${id}`, options);
      case 'search':
        return req('POST', '/v1/intents/search', { body: { addresses: [randomWallet()] }, ...options });
      case 'cancel':
        return req('POST', `/v1/intent/${id}/cancel`, options);
    }
  }
  const SUCCESS: Record<Route, number> = { create: 201, get: 200, search: 200, cancel: 200 };

  beforeAll(async () => {
    stack = await Stack.start({ API_KEY_CACHE_TTL_MS: '100' });
    writer = await stack.createKey({ scopes: ['intents:read', 'intents:write'], tenant });
  });
  afterAll(() => stack?.close());

  describe('401 Unauthorized', () => {
    it.each(ROUTES)('%s without any key', async (route) => {
      const id = await createIntent();
      const before = await intentCount();
      const res = await call(route, id);
      expectErrorObject(res, 401, 'Unauthorized');
      expect(await intentCount()).toBe(before);
      expect((await req('GET', `/v1/intent/${id}`, { key: writer })).body.status).toBe('pending');
    });

    it('is checked before the body: no key and an invalid body is 401, not 400', async () => {
      const before = await intentCount();
      expectErrorObject(await req('POST', '/v1/intent', { body: { chainId: 'x' } }), 401, 'Unauthorized');
      expect(await intentCount()).toBe(before);
    });

    it('is checked before the body is parsed: no key and malformed JSON is 401, not 400', async () => {
      for (const path of ['/v1/intent', '/v1/intents/search']) {
        const res = await req('POST', path, { rawBody: '{', headers: { 'content-type': 'application/json' } });
        expectErrorObject(res, 401, 'Unauthorized');
      }
    });

    const q = (k: string) => `?api_key=${encodeURIComponent(k)}&apiKey=${encodeURIComponent(k)}&key=${encodeURIComponent(k)}`;
    const UNKNOWN: Array<[string, () => { headers: Record<string, string>; query?: string }]> = [
      ['an unknown x-api-key', () => ({ headers: { 'x-api-key': 'nope' } })],
      ['an empty x-api-key', () => ({ headers: { 'x-api-key': '' } })],
      ['a random 64-char x-api-key', () => ({ headers: { 'x-api-key': randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '') } })],
      ['a 4000-char x-api-key', () => ({ headers: { 'x-api-key': 'k'.repeat(4000) } })],
      ['an SQL-looking x-api-key', () => ({ headers: { 'x-api-key': "' OR '1'='1" } })],
      ['a real key with a character appended', () => ({ headers: { 'x-api-key': writer + 'x' } })],
      ['a real key missing its last character', () => ({ headers: { 'x-api-key': writer.slice(0, -1) } })],
      ['an unknown Bearer token', () => ({ headers: { authorization: 'Bearer nope' } })],
      ['Bearer with no token', () => ({ headers: { authorization: 'Bearer ' } })],
      ['the bare word Bearer', () => ({ headers: { authorization: 'Bearer' } })],
      ['a real key without the Bearer scheme', () => ({ headers: { authorization: writer } })],
      ['an unknown Token', () => ({ headers: { authorization: 'Token nope' } })],
      ['Token with no key', () => ({ headers: { authorization: 'Token ' } })],
      ['a real key as Token with a trailing word', () => ({ headers: { authorization: `Token ${writer} extra` } })],
      ['a real key after an unknown scheme', () => ({ headers: { authorization: `Key ${writer}` } })],
      ['a real key as Basic credentials', () => ({ headers: { authorization: `Basic ${Buffer.from(`${writer}:`).toString('base64')}` } })],
      ['a real key in another header', () => ({ headers: { 'x-api-token': writer } })],
      ['a real key in the query string only', () => ({ headers: {}, query: q(writer) })],
    ];

    it.each(UNKNOWN)('%s', async (_desc, make) => {
      const { headers, query = '' } = make();
      const before = await intentCount();
      for (const [method, path, body] of [
        ['POST', `/v1/intent${query}`, intentBody()],
        ['POST', `/v1/intents/search${query}`, { addresses: [randomWallet()] }],
        ['GET', `/v1/intent/${randomUUID()}${query}`, undefined],
      ] as const) {
        const res = await req(method, path, { headers, ...(body ? { body } : {}) });
        expectErrorObject(res, 401, 'Unauthorized');
        // The presented secret is never echoed back.
        const secret = headers['x-api-key'];
        if (secret && secret.length > 3) expect(res.text).not.toContain(secret);
      }
      expect(await intentCount()).toBe(before);
    });
  });

  describe.each(['Bearer', 'Token'])('Authorization: %s', (scheme) => {
    it('works on every /v1 route exactly like x-api-key', async () => {
      const headers = { authorization: `${scheme} ${writer}` };
      for (const route of ROUTES) {
        const id = await createIntent();
        const res = await call(route, id, { headers });
        expect(`${route} ${res.status} ${res.text.slice(0, 300)}`).toMatch(new RegExp(`^${route} ${SUCCESS[route]} `));
      }
    });

    it('accepts the scheme name in any case (RFC 7235)', async () => {
      for (const name of [scheme.toLowerCase(), scheme.toUpperCase()]) {
        const res = await req('POST', '/v1/intents/search', { headers: { authorization: `${name} ${writer}` }, body: { addresses: [randomWallet()] } });
        expect(`${name}: ${res.status}`).toBe(`${name}: 200`);
      }
    });
  });

  describe('revocation', () => {
    it.each([
      ['x-api-key', (k: string) => ({ 'x-api-key': k })],
      ['Bearer', (k: string) => ({ authorization: `Bearer ${k}` })],
      ['Token', (k: string) => ({ authorization: `Token ${k}` })],
    ])('a revoked key (%s) answers 401 within a few seconds, and stays 401', async (_form, headers) => {
      const key = await stack.createKey({ scopes: ['intents:read', 'intents:write'] });
      const search = () => req('POST', '/v1/intents/search', { headers: headers(key), body: { addresses: [randomWallet()] } });
      expect((await search()).status).toBe(200); // now cached by the gateway
      await stack.revokeKey(key);
      let last: HttpResponse | undefined;
      await until('the revoked key to be refused', async () => (last = await search()).status === 401, 3_000);
      expectErrorObject(last!, 401, 'Unauthorized');
      for (let i = 0; i < 5; i++) expect((await search()).status).toBe(401);
      const before = await intentCount();
      expect((await req('POST', '/v1/intent', { headers: headers(key), body: intentBody() })).status).toBe(401);
      expect(await intentCount()).toBe(before);
    });
  });

  describe('per-key rate limit, changed by an operator', () => {
    /** `npm run -s apikey:limit -- --key KEY --rate-limit N` as an operator runs it (the gateway's CLI, its environment). */
    const setLimit = (key: string, rate: string) =>
      new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [join(ROOT, 'apps/gateway/dist/cli/apikey.js'), 'limit', '--key', key, '--rate-limit', rate], {
          env: stack.baseEnv,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.once('error', reject);
        child.once('close', (status) => resolve({ status, stderr }));
      });
    const limitOf = async (key: string) =>
      Number(
        (await req('POST', '/v1/intents/search', { headers: { 'x-api-key': key }, body: { addresses: [randomWallet()] } })).headers.get('x-ratelimit-limit'),
      );

    it('raises a heavy client’s key to its own rate within seconds, and takes it back to the default; an unknown key is refused', async () => {
      const key = await stack.createKey({ scopes: ['intents:read'] });
      const initial = await limitOf(key);
      const raised = await setLimit(key, String(initial * 10));
      expect(raised).toMatchObject({ status: 0 });
      await until('the new rate applied', async () => (await limitOf(key)) === initial * 10, 5_000);
      expect((await setLimit(key, 'default')).status).toBe(0);
      await until('the default rate again', async () => (await limitOf(key)) === initial, 5_000);
      const unknown = await setLimit('ti_' + 'A'.repeat(43), '5');
      expect(unknown.status).toBe(1);
      expect(unknown.stderr).toContain('no active key matches');
      expect((await setLimit(key, '0')).status).toBe(64);
    });
  });

  describe('scopes', () => {
    const MATRIX: Array<[string, Scope[], Record<Route, 'ok' | 403>]> = [
      ['intents:read', ['intents:read'], { create: 403, get: 'ok', search: 'ok', cancel: 403 }],
      ['intents:write', ['intents:write'], { create: 'ok', get: 403, search: 403, cancel: 'ok' }],
      ['payouts:read', ['payouts:read'], { create: 403, get: 403, search: 403, cancel: 403 }],
      ['simulate', ['simulate'], { create: 403, get: 403, search: 403, cancel: 403 }],
      ['payouts:read + simulate', ['payouts:read', 'simulate'], { create: 403, get: 403, search: 403, cancel: 403 }],
      ['admin', ['admin'], { create: 'ok', get: 'ok', search: 'ok', cancel: 'ok' }],
      ['intents:read + intents:write', ['intents:read', 'intents:write'], { create: 'ok', get: 'ok', search: 'ok', cancel: 'ok' }],
    ];
    const cases = MATRIX.flatMap(([desc, scopes, expected]) => ROUTES.map((route) => [desc, route, scopes, expected[route]] as const));

    it.each(cases)('key with %s → %s: %s', async (_desc, route, scopes, expected) => {
      const key = await stack.createKey({ scopes: [...scopes], tenant });
      const id = await createIntent();
      const before = await intentCount();
      const res = await call(route, id, { key });
      if (expected === 'ok') {
        expect(`${res.status} ${res.text.slice(0, 300)}`).toMatch(new RegExp(`^${SUCCESS[route]} `));
      } else {
        expectErrorObject(res, 403, 'Forbidden');
        expect(await intentCount()).toBe(before);
        expect((await req('GET', `/v1/intent/${id}`, { key: writer })).body.status).toBe('pending');
      }
    });

    it('is checked before the body: a read-only key with an invalid create body is 403, not 400', async () => {
      const key = await stack.createKey({ scopes: ['intents:read'], tenant });
      const before = await intentCount();
      expectErrorObject(await req('POST', '/v1/intent', { key, body: { chainId: 'x' } }), 403, 'Forbidden');
      expect(await intentCount()).toBe(before);
    });

    it('an admin key of its own tenant passes the scope check (another tenant’s id is still 404)', async () => {
      const key = await stack.createKey({ scopes: ['admin'] });
      const created = await req('POST', '/v1/intent', { key, body: intentBody() });
      expect(created.status).toBe(201);
      expect((await req('GET', `/v1/intent/${created.body.id}`, { key })).status).toBe(200);
      expect((await req('POST', `/v1/intent/${created.body.id}/cancel`, { key })).status).toBe(200);
    });
  });

  describe('rate limit', () => {
    it('429 RateLimited with Retry-After once a key with rateLimitPerSecond 2 fires 10 requests at once; other keys unaffected', async () => {
      const key = await stack.createKey({ scopes: ['intents:read'], rateLimitPerSecond: 2 });
      const path = `/v1/intent/${randomUUID()}`;
      const replies = await Promise.all(Array.from({ length: 10 }, () => req('GET', path, { key })));
      const limited = replies.filter((r) => r.status === 429);
      const passed = replies.filter((r) => r.status !== 429);
      expect(replies.map((r) => r.status).sort()).toEqual(expect.arrayContaining([404, 429]));
      expect(passed.every((r) => r.status === 404)).toBe(true);
      expect(limited.length).toBeGreaterThanOrEqual(5);
      for (const r of limited) {
        expectErrorObject(r, 429, 'RateLimited');
        const retryAfter = r.headers.get('retry-after');
        expect(retryAfter).toMatch(/^\d+$/);
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      }
      // Another key is not slowed by this one.
      expect((await req('GET', path, { key: writer })).status).toBe(404);
      // And the limited key recovers after Retry-After.
      const wait = Number(limited[0]!.headers.get('retry-after')) * 1000;
      await new Promise((r) => setTimeout(r, wait));
      await until('the rate-limited key to pass again', async () => (await req('GET', path, { key })).status === 404, 2_000);
    });
  });

  describe('x-request-id', () => {
    const SENT = 'abc-123';
    type Send = (headers: Record<string, string>) => Promise<HttpResponse>;
    const json = { 'content-type': 'application/json' };
    const CASES: Array<[string, Send]> = [
      ['GET /health (200)', (headers) => req('GET', '/health', { headers })],
      ['a /v1 success (200)', (headers) => req('POST', '/v1/intents/search', { key: writer, headers, body: { addresses: [randomWallet()] } })],
      ['a 201', (headers) => req('POST', '/v1/intent', { key: writer, headers, body: intentBody() })],
      ['a 401', (headers) => req('GET', `/v1/intent/${randomUUID()}`, { headers })],
      ['a 403', async (headers) => req('POST', '/v1/intent', { key: await stack.createKey({ scopes: ['intents:read'] }), headers, body: intentBody() })],
      ['a 404 (unknown id)', (headers) => req('GET', `/v1/intent/${randomUUID()}`, { key: writer, headers })],
      ['a 404 (unknown route)', (headers) => req('GET', '/nope', { key: writer, headers })],
      ['a 400', (headers) => req('POST', '/v1/intent', { key: writer, headers, body: {} })],
      ['a 400 (malformed JSON)', (headers) => req('POST', '/v1/intent', { key: writer, rawBody: '{', headers: { ...json, ...headers } })],
      [
        'a 413',
        (headers) => req('POST', '/v1/intent', { key: writer, rawBody: JSON.stringify({ pad: 'x'.repeat(70 * 1024) }), headers: { ...json, ...headers } }),
      ],
      ['GET /metrics', (headers) => req('GET', '/metrics', { headers })],
    ];

    it.each(CASES)('is echoed on %s, and generated when not sent', async (_desc, send) => {
      expect((await send({ 'x-request-id': SENT })).headers.get('x-request-id')).toBe(SENT);
      const first = (await send({})).headers.get('x-request-id');
      const second = (await send({})).headers.get('x-request-id');
      expect(first).toBeTruthy();
      expect(second).toBeTruthy();
      expect(first).not.toBe(SENT);
      expect(first).not.toBe(second);
    });

    it.each([
      ['markup', '<script>alert(1)</script>'],
      ['spaces', 'a b c'],
      ['2000 characters', 'r'.repeat(2000)],
      ['quotes and semicolons', '"; DROP TABLE x; --'],
    ])('is replaced by a generated one when the client sends an insane value (%s)', async (_desc, value) => {
      const res = await req('GET', '/health', { headers: { 'x-request-id': value } });
      const id = res.headers.get('x-request-id');
      expect(id).toBeTruthy();
      expect(id).not.toBe(value);
      expect(id!.length).toBeLessThanOrEqual(200);
      expect(id).toMatch(/^[A-Za-z0-9._:-]+$/);
    });
  });

  describe('operational endpoints (no key needed)', () => {
    it('GET /health → 200', async () => {
      const res = await req('GET', '/health');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    });

    it('GET /ready → 200 while Postgres and NATS answer', async () => {
      const res = await req('GET', '/ready');
      expect(`${res.status} ${res.text.slice(0, 300)}`).toMatch(/^200 /);
      expect(res.body).toEqual({
        status: 'ok',
        checks: {
          database: 'up',
          nats: 'up',
          services: { 'intent-service': 'up', 'simulation-service': 'up', 'payout-service': 'up', 'orderflow-service': 'up' },
        },
        failing: [],
      });
    });

    it('GET /health/services → each service up, with its latency', async () => {
      const res = await req('GET', '/health/services');
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('ok');
      for (const name of ['intent-service', 'simulation-service', 'payout-service', 'orderflow-service']) {
        expect(res.body.services[name]).toEqual({ state: 'up', latencyMs: expect.any(Number) });
        expect(res.body.services[name].latencyMs).toBeLessThan(1000);
      }
    });

    it('GET /metrics → Prometheus text with http_requests_total, and no API key in it', async () => {
      await req('GET', '/health');
      await req('POST', '/v1/intents/search', { key: writer, body: { addresses: [randomWallet()] } });
      const res = await req('GET', '/metrics');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/^# (HELP|TYPE) http_requests_total /m);
      expect(res.text).toMatch(/^http_requests_total\{[^}]*\} \d+/m);
      expect(res.text).not.toContain(writer);
    });

    it('GET /openapi.json → an OpenAPI 3.x document listing the four /v1 intent paths', async () => {
      const res = await req('GET', '/openapi.json');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.openapi).toMatch(/^3\.\d+\.\d+$/);
      const paths = res.body.paths ?? {};
      expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/v1/intent', '/v1/intents/search', '/v1/intent/{id}', '/v1/intent/{id}/cancel']));
      expect(paths['/v1/intent']).toHaveProperty('post');
      expect(paths['/v1/intents/search']).toHaveProperty('post');
      expect(paths['/v1/intent/{id}']).toHaveProperty('get');
      expect(paths['/v1/intent/{id}/cancel']).toHaveProperty('post');
    });

    it('GET /docs → an HTML page', async () => {
      const res = await req('GET', '/docs');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toMatch(/<html/i);
    });
  });

  // Last: it takes the intent service away and brings it back.
  describe('without the intent service', () => {
    it('/ready stays 200 (the gateway itself is fine), /health/services shows it down, /v1 answers 503 with Retry-After promptly; all recover with a replica', async () => {
      const id = await createIntent();
      for (const app of stack.intentReplicas.splice(0)) await app.close();
      const ready = await req('GET', '/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'degraded', failing: ['intent-service'] });
      const services = await req('GET', '/health/services');
      expect(services.status).toBe(200);
      expect(services.body.status).toBe('degraded');
      expect(services.body.services['intent-service']).toEqual({ state: 'down', latencyMs: null });
      expect(services.body.services['payout-service'].state).toBe('up');
      const started = Date.now();
      const down = await req('GET', `/v1/intent/${id}`, { key: writer });
      expectErrorObject(down, 503, 'ServiceUnavailable');
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(Date.now() - started).toBeLessThan(3_000);
      await stack.addIntentReplica();
      await until(
        'the intent service to be up again',
        async () => (await req('GET', '/health/services')).body.services['intent-service'].state === 'up',
        5_000,
      );
      expect((await req('GET', `/v1/intent/${id}`, { key: writer })).status).toBe(200);
    });
  });
});

describe('gateway rate limit from the environment (RATE_LIMIT_PER_SECOND=1, RATE_LIMIT_BURST=2)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
  });
  afterAll(() => stack?.close());

  it('limits a key without a limit of its own to the configured burst', async () => {
    const key = await stack.createKey({ scopes: ['intents:read'] });
    const replies = await Promise.all(Array.from({ length: 10 }, () => stack.request('GET', `/v1/intent/${randomUUID()}`, { key })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 404).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(7);
    for (const r of replies.filter((x) => x.status === 429)) {
      expect(r.body).toMatchObject({ error: true, name: 'RateLimited' });
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    }
  });
});
