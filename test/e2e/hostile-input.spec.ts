import { gzipSync, deflateSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { eventually, within } from '@tradeinfra/test-support';
import { connect } from '@nats-io/transport-node';
import { id, Wallet } from 'ethers';
import * as contracts from '@tradeinfra/contracts';
import { decodeRpcReply, MAX_JSON_DEPTH } from '@tradeinfra/contracts';
import { ROUTES } from '../../apps/gateway/src/openapi/openapi.js';
import { intentBody, Stack, WALLET, type HttpResponse } from './harness.js';
import { httpRequest, rawRequest, type RawResponse } from './raw-http.js';

/*
 * Hostile input at the edge (issue 10, item 1): text with NUL or bytes that are not UTF-8 is a
 * 400 naming the field, on every route; numbers and dates that reach SQL are range-checked by
 * the contracts; a body is bounded in size (413 at once on a declared length) and in time (408);
 * what Node's HTTP parser refuses is answered with the error object too.
 */

const BODY_TIMEOUT_MS = 1_500;
const UUID = '0190a5c4-0000-7000-8000-000000000001';
const TX = `0x${'ab'.repeat(32)}`;
const NUL_MESSAGE = 'must not contain NUL (\\u0000)';

function expectFieldError(res: { status: number; body: any; text?: string }, path: string, message?: string | RegExp): void {
  expect(`${res.status} ${JSON.stringify(res.body).slice(0, 600)}`).toMatch(/^400 /);
  expect(res.body).toMatchObject({ error: true, name: 'ValidationError', message: expect.any(String) });
  const issue = (res.body.details as Array<{ path: string; message: string }>).find((d) => d.path === path);
  expect({ paths: res.body.details.map((d: { path: string }) => d.path), issue }).toEqual({ paths: expect.arrayContaining([path]), issue: expect.anything() });
  if (message !== undefined) expect(issue!.message).toMatch(message);
}

function parsed(res: RawResponse): { status: number; body: any } {
  return { status: res.status, body: res.body ? JSON.parse(res.body) : undefined };
}

describe('hostile input', () => {
  let stack: Stack;
  let admin: string;

  beforeAll(async () => {
    stack = await Stack.start({ BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS), HEADERS_TIMEOUT_MS: '1500' });
    admin = await stack.createKey({ scopes: ['admin'] });
  });
  afterAll(() => stack?.close());

  const send = (method: string, path: string, body?: unknown) =>
    within(stack.request(method, path, { key: admin, ...(body === undefined ? {} : { body }) }), 10_000, `${method} ${path}`);
  /** A searcher's identity: `/v1/mev` takes no key but a signature of the body (X-Flashbots-Signature). */
  const searcher = Wallet.createRandom();
  const sendRaw = async (method: string, path: string, body: Buffer) => {
    const headers: Record<string, string> = { 'x-api-key': admin, 'content-type': 'application/json', connection: 'close' };
    if (path === '/v1/mev') headers['x-flashbots-signature'] = `${searcher.address}:${await searcher.signMessage(id(body.toString()))}`;
    return within(rawRequest(stack.baseUrl, httpRequest(method, path, headers, body)), 10_000, path);
  };

  /** Every body-taking route, with a body whose `field` holds `value` (everything else valid). */
  const BODY_ROUTES: Array<[string, string, string, (value: string) => unknown]> = [
    ['POST', '/v1/intent', 'notificationWebhookUrl', (v) => intentBody({ notificationWebhookUrl: `https://example.com/${v}` })],
    ['POST', '/v1/intents/search', 'cursor', (v) => ({ addresses: [WALLET], cursor: v })],
    ['POST', `/v1/intent/${UUID}/cancel`, 'reason', (v) => ({ reason: v })],
    ['POST', '/v1/simulate', 'calls.0.data', (v) => ({ chainId: 1, calls: [{ from: WALLET, data: `0x${v}` }] })],
    [
      'POST',
      '/v1/payouts/entries',
      'sourceId',
      (v) => ({ id: randomUUID(), chainId: 1, txHash: TX, sourceId: `src-${v}`, asset: 'ETH', amount: '1', type: 'mev', time: new Date().toISOString() }),
    ],
    ['POST', '/v1/cashback/source/src-1/payout', 'asset', (v) => ({ address: WALLET, chainId: 1, asset: `ETH${v}` })],
    ['POST', `/v1/cashback/payout/${UUID}/status`, 'status', (v) => ({ status: `PAID${v}` })],
    ['POST', '/v1/sources', 'tenant', (v) => ({ id: 'src-1', tenant: `acme${v}` })],
  ];

  describe('NUL, unpaired surrogates and bytes that are not UTF-8 in a body: 400 naming the field, on every route', () => {
    it.each(BODY_ROUTES)('%s %s (%s) with a NUL', async (method, path, field, make) => {
      expectFieldError(await send(method, path, make('a\u0000b')), field, NUL_MESSAGE);
    });

    it.each(BODY_ROUTES)('%s %s (%s) with an unpaired surrogate', async (method, path, field, make) => {
      expectFieldError(await send(method, path, make('a\ud800b')), field, /unpaired surrogate/);
    });

    it.each(BODY_ROUTES)('%s %s (%s) with the byte 0xFF', async (method, path, field, make) => {
      const [before, after] = JSON.stringify(make('MARK')).split('MARK') as [string, string];
      const res = parsed(await sendRaw(method, path, Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)])));
      expectFieldError(res, field, 'is not valid UTF-8');
    });

    it('a NUL in an object key is named (escaped) too', async () => {
      expectFieldError(await send('POST', '/v1/intents/search', { addresses: [WALLET], 'x\u0000y': 1 }), 'x\\u0000y', NUL_MESSAGE);
    });

    it('the NUL tenant name of the report no longer reaches Postgres (it answered 500)', async () => {
      const res = await send('POST', '/v1/sources', { id: 'src-nul', tenant: 'acme\u0000' });
      expectFieldError(res, 'tenant', NUL_MESSAGE);
      expect(res.body.message).toBe(`tenant: ${NUL_MESSAGE}`);
    });

    it('a body that is not UTF-8 and not JSON either is a 400 about the body', async () => {
      const res = parsed(await sendRaw('POST', '/v1/intents/search', Buffer.from([0x7b, 0xc3, 0x28, 0x7d])));
      expectFieldError(res, '', 'is not valid UTF-8');
    });
  });

  describe('NUL and bad escapes in query strings and paths', () => {
    const GET_ROUTES = [
      `/v1/intent/${UUID}`,
      '/v1/intents/notifications/secret',
      '/v1/intents/events',
      `/v1/payouts/tx/${TX}`,
      '/v1/payouts',
      '/v1/cashback/source/src-1',
      `/v1/cashback/payout/${UUID}`,
      '/health',
      '/ready',
    ];
    it.each(GET_ROUTES)('GET %s?q=%00 → 400 naming query.q', async (path) => {
      expectFieldError(await send('GET', `${path}?q=%00`), 'query.q', NUL_MESSAGE);
    });

    it.each(GET_ROUTES)('GET %s?q=%FF → 400 naming query.q', async (path) => {
      expectFieldError(await send('GET', `${path}?q=%FF`), 'query.q', 'is not valid percent-encoded UTF-8');
    });

    it.each([
      ['sourceId', '/v1/payouts?sourceId=src%00'],
      ['cursor', '/v1/payouts?cursor=%E0%80%80'],
      ['status', '/v1/payouts?status=%ED%A0%80'],
      ['q', `/v1/cashback/payout/${UUID}?q=%`],
    ])('names query.%s', async (name, path) => {
      expectFieldError(await send('GET', path), `query.${name}`);
    });

    it.each([
      ['hash', `/v1/payouts/tx/%00`],
      ['id', '/v1/cashback/source/src%00'],
      ['id', `/v1/intent/${UUID}%00`],
      ['path', '/v1/intent/%FF'],
      ['path', '/v1/cashback/source/%C3%28'],
      ['path', '/v1/cashback/payout/%'],
    ])('a bad path segment → 400 naming %s', async (name, path) => {
      expectFieldError(await send('GET', path), name);
    });
  });

  describe('numbers and dates that reach SQL are range-checked at the edge', () => {
    it.each([
      ['chainId', '/v1/payouts?chainId=10000000000000000'],
      ['chainId', '/v1/payouts?chainId=2147483648'],
      ['chainId', '/v1/payouts?chainId=0'],
      ['chainId', '/v1/payouts?chainId=1e3'],
      ['limit', '/v1/payouts?limit=10000000000000000'],
      ['limit', '/v1/payouts?limit=501'],
      ['limit', '/v1/payouts?limit=-1'],
      ['limit', '/v1/payouts?limit=1&limit=2'],
      ['from', '/v1/payouts?from=0000-01-01T00:00:00Z'],
      ['from', '/v1/payouts?from=2024-02-30T00:00:00Z'],
      ['to', '/v1/payouts?to=99999-01-01T00:00:00Z'],
      ['to', '/v1/payouts?to=2024-01-01T24:00:00Z'],
    ])('GET with a bad %s: %s → 400', async (field, path) => {
      expectFieldError(await send('GET', path), field);
    });

    it.each(['/v1/payouts?chainId=2147483647', '/v1/payouts?limit=500&chainId=1', '/v1/payouts?from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z'])(
      'the bounds themselves are accepted: %s → 200',
      async (path) => {
        const res = await send('GET', path);
        expect(`${res.status} ${res.text.slice(0, 300)}`).toMatch(/^200 /);
        expect(res.body).toEqual([]);
      },
    );

    it.each([
      ['chainId', { chainId: 2 ** 31 }],
      ['chainId', { chainId: 1e20 }],
      ['time', { time: '0000-12-31T00:00:00Z' }],
      ['time', { time: '2023-02-29T12:00:00Z' }],
    ])('POST /v1/payouts/entries with a bad %s → 400', async (field, override) => {
      const event = { id: randomUUID(), chainId: 1, txHash: TX, asset: 'ETH', amount: '1', type: 'mev', time: new Date().toISOString(), ...override };
      expectFieldError(await send('POST', '/v1/payouts/entries', event), field);
    });

    it('POST /v1/cashback/source/:id/payout with a chainId past the ledger’s integer → 400', async () => {
      expectFieldError(await send('POST', '/v1/cashback/source/src-1/payout', { address: WALLET, chainId: 2 ** 31, asset: 'ETH' }), 'chainId');
    });
  });

  describe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels: 400 before anything recursive reads it, on every route (issue 25, item 2)`, () => {
    const TOO_DEEP = `must not nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels`;
    const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    /** Every documented route (methods included), ids filled in; a GET takes a body too. `/dashboard` is a static page that never reads one. */
    const EVERY_ROUTE = ROUTES.filter((r) => r.path !== '/dashboard').map(
      (r) => [r.method.toUpperCase(), r.path.replace('{hash}', TX).replace('{id}', r.path.includes('source') ? 'src-1' : UUID)] as const,
    );
    /** The body limit of a path, as the gateway starts (simulate's lowered to what NATS carries). */
    const limitOf = (path: string) =>
      path === '/v1/simulate' ? 1024 * 1024 - 1024 : path === '/v1/intents' ? 512 * 1024 : ['/v1/rpc', '/v1/mev'].includes(path) ? 256 * 1024 : 64 * 1024;

    const expectTooDeep = (label: string, res: { status: number; body: any }) => {
      expect(`${label} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`).toBe(
        `${label} → 400 ${JSON.stringify({ error: true, name: 'ValidationError', message: `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, details: [{ path: '', message: TOO_DEEP }] })}`,
      );
    };

    it.each(EVERY_ROUTE)(
      '%s %s: 65 levels, 10,000 (the report’s 500 on simulate) and as many as its body limit holds (400,000 on /v1/simulate)',
      async (method, path) => {
        const most = Math.min(400_000, Math.floor(limitOf(path) / 2));
        for (const depth of [MAX_JSON_DEPTH + 1, 10_000, most]) {
          expectTooDeep(`${method} ${path} at ${depth}`, parsed(await sendRaw(method, path, Buffer.from(arrays(depth)))));
        }
      },
    );

    it('the report’s case: a simulate body with a field nested 10,000 (and 400,000) levels deep, plain, gzip and never closed', async () => {
      const valid = JSON.stringify({ chainId: 1, calls: [{ from: WALLET, to: WALLET, data: '0x' }] });
      for (const depth of [10_000, 400_000]) {
        const body = `${valid.slice(0, -1)},"overrides":{"accounts":${arrays(depth)}}}`;
        expectTooDeep(`simulate ${depth}`, parsed(await sendRaw('POST', '/v1/simulate', Buffer.from(body))));
        const gzipped = httpRequest(
          'POST',
          '/v1/simulate',
          { 'x-api-key': admin, 'content-type': 'application/json', 'content-encoding': 'gzip', connection: 'close' },
          gzipSync(body),
        );
        expectTooDeep(`simulate ${depth} gzip`, parsed(await within(rawRequest(stack.baseUrl, gzipped), 10_000, 'gzip')));
        const open = depth > 100_000 ? '['.repeat(depth) : '{"a":['.repeat(depth / 2);
        expectTooDeep(`simulate ${depth} open`, parsed(await sendRaw('POST', '/v1/simulate', Buffer.from(`${valid.slice(0, -1)},"x":${open}`))));
      }
    });

    it('brackets inside strings do not count, and 64 levels are read (then refused by the schema, not for depth)', async () => {
      const inString = await send('POST', '/v1/intents/search', { addresses: [WALLET], cursor: '['.repeat(10_000) });
      expect(inString.body.details).not.toContainEqual({ path: '', message: TOO_DEEP });
      const at64 = parsed(await sendRaw('POST', '/v1/intents/search', Buffer.from(`{"addresses":${arrays(MAX_JSON_DEPTH - 1)}}`)));
      expect(at64).toMatchObject({ status: 400, body: { name: 'ValidationError' } });
      expect(at64.body.details).not.toContainEqual({ path: '', message: TOO_DEEP });
      expect(at64.body.details[0].path).toMatch(/^addresses/);
    });

    it('every service subject, sent 400,000 levels over NATS past the gateway, answers ValidationError; every service still answers', async () => {
      const subjects = Object.values(contracts).filter(
        (v): v is string => typeof v === 'string' && /^(intent|exit|payout|simulation|orderflow)\.[a-z.-]+[a-z]$/.test(v),
      );
      expect(subjects).toEqual(
        expect.arrayContaining([contracts.INTENT_CREATE, contracts.PAYOUT_REQUEST, contracts.SIMULATION_SIMULATE, contracts.ORDERFLOW_RPC]),
      );
      const nc = await connect({ servers: stack.nats.url });
      try {
        for (const subject of subjects) {
          const packet = `{"pattern":"${subject}","data":{"body":${arrays(400_000)}},"id":"${randomUUID()}"}`;
          const reply = decodeRpcReply((await nc.request(subject, packet, { timeout: 5_000 })).string());
          expect({ subject, reply }).toEqual({ subject, reply: { ok: false, error: expect.objectContaining({ name: 'ValidationError' }) } });
        }
      } finally {
        await nc.close();
      }
      expect((await send('GET', '/health/services')).body.status).toBe('ok');
    });

    it('a deeply nested query string stays flat (Express 5’s simple parser): no 5xx, the name is refused as it is', async () => {
      const name = `status${'[a]'.repeat(5_000)}`;
      const res = await send('GET', `/v1/payouts?${name}=PAID`);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.details)).toContain('status[a][a]');
    });
  });

  describe('body size and time', () => {
    const raw = (request: Buffer, options?: Parameters<typeof rawRequest>[2]) => within(rawRequest(stack.baseUrl, request, options), 15_000, 'raw request');
    const post = (headers: Record<string, string>, body: string | Buffer) =>
      httpRequest('POST', '/v1/intents/search', { 'x-api-key': admin, 'content-type': 'application/json', ...headers }, body);

    it('a declared Content-Length over the limit is answered 413 at once, though the body never comes (it hung until the request timeout)', async () => {
      const res = await raw(post({ 'content-length': String(10 * 1024 * 1024) }, '{}'));
      // 413, not the 408 that waiting for the body would end in.
      expect(parsed(res)).toEqual({ status: 413, body: expect.objectContaining({ error: true, name: 'PayloadTooLarge' }) });
    });

    it('a simulate body just under SIMULATE_BODY_LIMIT_BYTES (1 MiB) that NATS cannot carry is a 413 at once, not a 503 "retry shortly"', async () => {
      // NATS's max_payload is 1 MiB: the gateway lowered the simulate limit at start to leave room for the envelope.
      const data = `0x${'00'.repeat((1024 * 1024 - 300) / 2)}`;
      const body = Buffer.from(JSON.stringify({ chainId: 1, calls: [{ from: WALLET, to: WALLET, data }] }));
      expect(body.length).toBeLessThan(1024 * 1024);
      const res = parsed(await sendRaw('POST', '/v1/simulate', body));
      expect(res).toMatchObject({
        status: 413,
        body: { error: true, name: 'PayloadTooLarge', message: `Request body is larger than ${1024 * 1024 - 1024} bytes` },
      });
    });

    it('a simulate body just under the lowered limit reaches the simulation service', async () => {
      // Four calls (a call's data is at most 128 KiB) filling the body to the lowered limit.
      const limit = 1024 * 1024 - 1024;
      const call = (digits: number) => ({ from: WALLET, to: WALLET, data: `0x${'0'.repeat(digits)}` });
      const envelope = JSON.stringify({ chainId: 1, calls: [call(0), call(0), call(0), call(0)] }).length;
      const full = 2 * 128 * 1024;
      const last = (limit - envelope - 3 * full) & ~1;
      const body = Buffer.from(JSON.stringify({ chainId: 1, calls: [call(full), call(full), call(full), call(last)] }));
      expect(body.length).toBeGreaterThan(limit - 2);
      expect(body.length).toBeLessThanOrEqual(limit);
      const res = parsed(await sendRaw('POST', '/v1/simulate', body));
      // The simulation service's own answer (this stack has no chain RPC): the body went through NATS.
      expect(res).toMatchObject({ status: 400, body: { name: 'ValidationError', message: expect.stringContaining('chain 1 has no RPC configured') } });
    });

    it('a Content-Length under the limit with a shorter body is answered 408 RequestTimeout once BODY_TIMEOUT_MS passes, and the connection closed', async () => {
      const res = await raw(post({ 'content-length': '100' }, '{"addresses"'));
      expect(parsed(res)).toEqual({
        status: 408,
        body: { error: true, name: 'RequestTimeout', message: expect.stringContaining(`${BODY_TIMEOUT_MS} ms`), details: null },
      });
      expect(res.headers.connection).toBe('close');
    });

    it('a body sent one byte at a time cannot hold the request past BODY_TIMEOUT_MS', async () => {
      const body = Buffer.from(JSON.stringify({ addresses: [WALLET] }));
      const res = await raw(post({ 'content-length': String(body.length) }, ''), { drip: { bytes: body, everyMs: 100 } });
      expect(parsed(res)).toMatchObject({ status: 408, body: { error: true, name: 'RequestTimeout' } });
    });

    it('headers that never end are answered 408 with the error object (HEADERS_TIMEOUT_MS)', async () => {
      const res = await raw(Buffer.from(`GET /v1/payouts HTTP/1.1\r\nhost: x\r\nx-api-key: ${admin}\r\n`));
      expect(parsed(res)).toMatchObject({ status: 408, body: { error: true, name: 'RequestTimeout' } });
      expect(res.headers['x-request-id']).toBeTruthy();
    });

    it.each([
      ['a header without a colon', 'GET /health HTTP/1.1\r\nhost: x\r\nnot a header\r\n\r\n'],
      ['a bad request line', 'GARBAGE\r\n\r\n'],
      ['an invalid Content-Length', 'POST /v1/intents/search HTTP/1.1\r\nhost: x\r\ncontent-length: 12abc\r\n\r\n'],
      ['two Content-Lengths', 'POST /v1/intents/search HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}'],
      ['a control character in a header value', 'GET /health HTTP/1.1\r\nhost: x\r\nx-request-id: a\x01b\r\n\r\n'],
      ['headers larger than Node takes', `GET /health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ])('what the HTTP parser refuses (%s) is a 400 error object', async (_desc, request) => {
      const res = await raw(Buffer.from(request, 'latin1'));
      expect(parsed(res)).toMatchObject({ status: 400, body: { error: true, name: 'ValidationError', message: expect.any(String) } });
    });

    it('gzip and deflate bodies are read; another encoding is a 400; a compressed bomb is a 413', async () => {
      const body = JSON.stringify({ addresses: [WALLET] });
      for (const [encoding, bytes] of [
        ['gzip', gzipSync(body)],
        ['deflate', deflateSync(body)],
      ] as const) {
        const res = await raw(post({ 'content-encoding': encoding }, bytes));
        expect(`${encoding} ${res.status} ${res.body}`).toBe(`${encoding} 200 []`);
      }
      expectFieldError(parsed(await raw(post({ 'content-encoding': 'zstd' }, body))), 'headers.content-encoding');
      const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x20));
      expect(bomb.length).toBeLessThan(64 * 1024);
      expect(parsed(await raw(post({ 'content-encoding': 'gzip' }, bomb)))).toMatchObject({ status: 413, body: { name: 'PayloadTooLarge' } });
    });

    it('an event stream opened with a body, or dropped at once, gives its slot back (5 per key)', async () => {
      const key = await stack.createKey({ scopes: ['intents:read'] });
      for (let i = 0; i < 12; i++) {
        const withBody = i % 2 === 0;
        const request = httpRequest(
          'GET',
          '/v1/intents/events',
          { 'x-api-key': key, ...(withBody ? { 'content-type': 'application/json' } : {}) },
          withBody ? '{}' : '',
        );
        // The client reads the headers, then hangs up (the gateway sees it an instant later).
        const res = await eventually(
          `stream ${i} to open`,
          async () => {
            const r = await raw(request);
            return r.status === 200 ? r : undefined;
          },
          3_000,
        );
        expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      }
    });

    it('the gateway is still ready after all of it', async () => {
      const ready: HttpResponse = await stack.request('GET', '/ready');
      expect(ready.status).toBe(200);
    });
  });
});
