import { randomBytes, randomUUID } from 'node:crypto';
import { within } from '@tradeinfra/test-support';
import { Stack, type HttpResponse, type RequestOptions } from './harness.js';

/*
 * Headers and limits of authentication (issue 10, item 6): 401 carries WWW-Authenticate;
 * answers to a key carry X-RateLimit-Limit/-Remaining/-Reset (GitHub's form, reset in unix
 * seconds), 429 too with Retry-After; requests without a known-good key are limited per client
 * address before any key lookup, and unknown keys are remembered (no lookup when they come again).
 */

const madeUpKey = () => `ti_${randomBytes(32).toString('base64url')}`;
const CHALLENGE = 'Bearer realm="tradeinfra", Token realm="tradeinfra"';
const INVALID_CHALLENGE = 'Bearer realm="tradeinfra", error="invalid_token", Token realm="tradeinfra"';

function rateHeaders(res: HttpResponse): { limit: number; remaining: number; reset: number } {
  const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((h) => {
    const value = res.headers.get(h);
    expect(`${h}: ${value}`).toMatch(new RegExp(`^${h}: \\d+$`));
    return Number(value);
  }) as [number, number, number];
  return { limit, remaining, reset };
}

describe('authentication headers and limits (UNAUTH 0.25/s burst 5, TRUST_PROXY=loopback)', () => {
  let stack: Stack;
  let reader: string;
  let slow: string;

  beforeAll(async () => {
    stack = await Stack.start({
      // One token per 4 s: a test's burst of requests sees no refill even on a busy machine.
      UNAUTH_RATE_LIMIT_PER_SECOND: '0.25',
      UNAUTH_RATE_LIMIT_BURST: '5',
      TRUST_PROXY: 'loopback',
      API_KEY_CACHE_TTL_MS: '60000',
      RATE_LIMIT_PER_SECOND: '50',
      RATE_LIMIT_BURST: '20',
    });
    reader = await stack.createKey({ scopes: ['intents:read', 'payouts:read'] });
    slow = await stack.createKey({ scopes: ['intents:read'], rateLimitPerSecond: 2 });
  });
  afterAll(() => stack?.close());

  /** Each test sends from its own client address (X-Forwarded-For, trusted from loopback). */
  const from =
    (address: string) =>
    (method: string, path: string, options: RequestOptions = {}) =>
      within(stack.request(method, path, { ...options, headers: { 'x-forwarded-for': address, ...options.headers } }), 10_000, `${method} ${path}`);

  describe('WWW-Authenticate on every 401', () => {
    it.each([
      ['no key', {}, CHALLENGE],
      ['an empty Bearer', { authorization: 'Bearer ' }, CHALLENGE],
      ['an unknown key', { 'x-api-key': madeUpKey() }, INVALID_CHALLENGE],
      ['an unknown Bearer token', { authorization: `Bearer ${madeUpKey()}` }, INVALID_CHALLENGE],
      ['an unknown Token', { authorization: `Token ${madeUpKey()}` }, INVALID_CHALLENGE],
      ['a malformed key', { 'x-api-key': 'nope' }, INVALID_CHALLENGE],
    ])('%s', async (_desc, headers, challenge) => {
      const res = await from(`198.51.100.${Math.floor(Math.random() * 200) + 20}`)('GET', `/v1/intent/${randomUUID()}`, { headers });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: true, name: 'Unauthorized' });
      expect(res.headers.get('www-authenticate')).toBe(challenge);
    });
  });

  describe('X-RateLimit-* on answers to a key', () => {
    it('on 200, 404 and 403 alike: the bucket size, what is left (counting down), and when it is full again', async () => {
      const send = from('198.51.100.1');
      const before = Math.floor(Date.now() / 1000);
      const answers = [
        await send('GET', '/v1/payouts', { key: reader }),
        await send('GET', `/v1/intent/${randomUUID()}`, { key: reader }),
        await send('POST', '/v1/intent', { key: reader, body: {} }),
      ];
      expect(answers.map((r) => r.status)).toEqual([200, 404, 403]);
      const headers = answers.map(rateHeaders);
      for (const h of headers) {
        expect(h.limit).toBe(20);
        // Full again within burst/rate = 0.4 s of now.
        expect(h.reset).toBeGreaterThanOrEqual(before);
        expect(h.reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);
      }
      expect(headers[1]!.remaining).toBeLessThan(headers[0]!.remaining + 1);
      expect(headers[0]!.remaining).toBeLessThan(20);
    });

    it('a key with its own rate: limit is that rate; the 429 says Remaining 0, when to retry and when the bucket is full', async () => {
      const send = from('198.51.100.2');
      const replies = await Promise.all(Array.from({ length: 6 }, () => send('GET', `/v1/intent/${randomUUID()}`, { key: slow })));
      const limited = replies.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(3);
      for (const r of replies) expect(rateHeaders(r).limit).toBe(2);
      for (const r of limited) {
        expect(r.body).toMatchObject({ error: true, name: 'RateLimited' });
        expect(rateHeaders(r).remaining).toBe(0);
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(rateHeaders(r).reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
      }
    });
  });

  describe('requests without a known key, per client address', () => {
    it('a missing key: 5 answers 401 (the burst), then 429 with Retry-After; another address is not affected', async () => {
      const send = from('203.0.113.10');
      const replies: HttpResponse[] = [];
      for (let i = 0; i < 8; i++) replies.push(await send('GET', `/v1/intent/${randomUUID()}`));
      expect(replies.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      expect(replies.map((r) => rateHeaders(r).remaining).slice(0, 5)).toEqual([4, 3, 2, 1, 0]);
      for (const r of replies.slice(5)) {
        expect(r.body).toMatchObject({ error: true, name: 'RateLimited', message: expect.stringContaining('without a valid API key') });
        expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        expect(rateHeaders(r)).toMatchObject({ limit: 5, remaining: 0 });
      }
      expect((await from('203.0.113.11')('GET', `/v1/intent/${randomUUID()}`)).status).toBe(401);
    });

    it('an address behind the same /64 shares the bucket (IPv6)', async () => {
      for (let i = 0; i < 5; i++) expect((await from(`2001:db8:77:1::${i + 1}`)('GET', '/v1/payouts')).status).toBe(401);
      expect((await from('2001:db8:77:1:ffff::9')('GET', '/v1/payouts')).status).toBe(429);
      expect((await from('2001:db8:77:2::1')('GET', '/v1/payouts')).status).toBe(401);
    });

    it('a key known to be good keeps working from a flooded address', async () => {
      const send = from('203.0.113.20');
      expect((await send('GET', '/v1/payouts', { key: reader })).status).toBe(200); // known from here on
      for (let i = 0; i < 10; i++) await send('GET', '/v1/payouts', { key: madeUpKey() });
      expect((await send('GET', '/v1/payouts', { key: madeUpKey() })).status).toBe(429);
      const res = await send('GET', '/v1/payouts', { key: reader });
      expect(res.status).toBe(200);
      expect(rateHeaders(res).limit).toBe(20); // its own bucket
    });

    it('no database lookup for a refused or remembered key: they answer while the key table is locked', async () => {
      const send = from('203.0.113.30');
      const remembered = madeUpKey();
      expect((await send('GET', '/v1/payouts', { key: remembered })).status).toBe(401);
      expect((await send('GET', '/v1/payouts', { key: reader })).status).toBe(200);
      const lock = await stack.db.admin();
      try {
        await lock.query('BEGIN');
        await lock.query('LOCK TABLE gateway.api_keys IN ACCESS EXCLUSIVE MODE');
        // A lookup would now wait for the lock; these answer at once.
        expect((await send('GET', '/v1/payouts', { key: remembered })).status).toBe(401); // the negative cache
        expect((await send('GET', '/v1/payouts', { key: reader })).status).toBe(200); // the positive cache
        for (let i = 0; i < 5; i++) await send('GET', '/v1/payouts', { key: remembered });
        // The bucket is empty: a key never seen is refused before its lookup.
        expect((await send('GET', '/v1/payouts', { key: madeUpKey() })).status).toBe(429);
      } finally {
        await lock.query('ROLLBACK');
        await lock.end();
      }
    });

    it('the address refills at UNAUTH_RATE_LIMIT_PER_SECOND', async () => {
      const send = from('203.0.113.40');
      let last: HttpResponse | undefined;
      for (let i = 0; i < 6; i++) last = await send('GET', '/v1/payouts');
      expect(last!.status).toBe(429);
      await new Promise((r) => setTimeout(r, Number(last!.headers.get('retry-after')) * 1000));
      expect((await send('GET', '/v1/payouts')).status).toBe(401);
    });
  });
});

describe('without TRUST_PROXY, X-Forwarded-For is ignored (the TCP peer is the client)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ UNAUTH_RATE_LIMIT_PER_SECOND: '0.25', UNAUTH_RATE_LIMIT_BURST: '3' });
  });
  afterAll(() => stack?.close());

  it('a client cannot escape its bucket by claiming other addresses', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await stack.request('GET', '/v1/payouts', { headers: { 'x-forwarded-for': `198.18.0.${i + 1}` } })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});
