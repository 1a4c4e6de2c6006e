import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { within } from '@tradeinfra/test-support';
import type { Scope } from '../../apps/gateway/src/auth/scopes.js';
import { intentBody, Stack } from './harness.js';
import { httpRequest, rawRequest, type RawResponse } from './raw-http.js';

/*
 * Fuzzing the gateway (issue 10, item 1): thousands of generated malformed requests over every
 * route, with keys of every scope and without, from a seeded PRNG (FUZZ_SEED; FUZZ_REQUESTS
 * sets how many). Every answer must come within 2 s, never be a 5xx, be the error object unless
 * it is a 2xx, carry x-request-id, and hold no stack trace, SQL or host name; the gateway must
 * still be ready at the end. Bodies nest up to 400,000 levels deep (issue 25, item 2: the gateway
 * reads at most MAX_JSON_DEPTH). The seed, the status counts (of the deep requests too, with the
 * deepest sent) and the slowest answers are printed and written to
 * <tmpdir>/tradeinfra-fuzz-summary.json.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123) >>> 0;
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 5_200);
const CONCURRENCY = 10;
const ANSWER_WITHIN_MS = 2_000;

/** sfc32: a small, fast, seedable PRNG (the same seed gives the same requests). */
function prng(seed: number) {
  let a = 0x9e3779b9,
    b = 0x243f6a88,
    c = 0xb7e15162,
    d = seed;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => next() < p;
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(16)]).join('');
  return { next, int, pick, chance, hex };
}
type Rng = ReturnType<typeof prng>;

const STACK_FRAME = /(\n\s+at\s)|(\bat\s+\S+\s+\([^)]*:\d+:\d+\))|(\bat\s+(file:\/\/)?\/\S+:\d+:\d+)/;
const LEAKS = [/\bSELECT\b/, /\bINSERT INTO\b/, /\bUPDATE \w+\.\w+ SET\b/, /QueryFailedError/, /node_modules/, /\/work\//, /PARAMETERS:/, /\bpg_\w+\(/];

/** Strings that break things: NUL, surrogates, controls, direction overrides, huge ones. */
const NASTY_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udc00y',
  '\ud83d',
  '🚀',
  '\u202egnp.exe',
  '\u200b\u200d\ufeff',
  'e\u0301\u0301\u0301',
  '\u0007\u001b[31m',
  '\\',
  '"',
  "' or '1'='1",
  '%00',
  '%FF',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  'null',
  'true',
  '1e400',
  '-0',
  'ünïcødé',
  '日本語',
  'x'.repeat(300),
  'y'.repeat(70_000),
  '0x',
  '0x' + 'g'.repeat(40),
  'NaN',
  'Infinity',
  '\r\n',
  '\t',
];
/** Numbers as JSON text, so huge and odd ones go out exactly as written. */
const NASTY_NUMBERS = [
  '0',
  '-1',
  '1',
  '1.5',
  '-0',
  '1e400',
  '-1e400',
  '1e-400',
  '2147483648',
  '4294967296',
  '9007199254740993',
  '18446744073709551617',
  '115792089237316195423570985008687907853269984665640564039457584007913129639936',
  '1' + '0'.repeat(500),
  '0.1e1',
  '1E+2',
  '123456789012345678901234567890.5',
];

interface Target {
  method: string;
  path: string;
  /** A valid body for the route (mutated by the fuzzer), or undefined. */
  body?: () => unknown;
}

describe('fuzzing every route of the gateway', () => {
  let stack: Stack;
  const keys: Record<string, string> = {};
  let revoked = '';
  let intentIds: string[] = [];
  let payoutId = randomUUID();
  const TX = `0x${'cd'.repeat(32)}`;
  const SOURCE = 'fuzz-src';

  beforeAll(async () => {
    stack = await Stack.start({
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      UNAUTH_RATE_LIMIT_PER_SECOND: '100000',
      UNAUTH_RATE_LIMIT_BURST: '100000',
      // Truncated bodies and headers are answered (408) well within the 2 s every answer gets.
      BODY_TIMEOUT_MS: '500',
      HEADERS_TIMEOUT_MS: '300',
    });
    const scopes: Array<[string, Scope[]]> = [
      ['intents:read', ['intents:read']],
      ['intents:write', ['intents:write']],
      ['payouts:read', ['payouts:read']],
      ['payouts:write', ['payouts:write']],
      ['simulate', ['simulate']],
      ['admin', ['admin']],
      ['default', ['intents:read', 'intents:write', 'payouts:read', 'payouts:write', 'simulate']],
    ];
    for (const [name, s] of scopes) keys[name] = await stack.createKey({ scopes: s, tenant: 'fuzz' });
    revoked = await stack.createKey({ scopes: ['admin'], tenant: 'fuzz' });
    await stack.revokeKey(revoked);
    // Real records, so some requests find what they ask for.
    const admin = { key: keys.admin };
    intentIds = [];
    for (let i = 0; i < 5; i++) intentIds.push((await stack.request('POST', '/v1/intent', { ...admin, body: intentBody() })).body.id);
    expect((await stack.request('POST', '/v1/sources', { ...admin, body: { id: SOURCE, tenant: 'fuzz' } })).status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const event = { id: randomUUID(), chainId: 1, txHash: TX, sourceId: SOURCE, asset: 'ETH', amount: '0.5', type: 'mev', time: new Date().toISOString() };
      expect((await stack.request('POST', '/v1/payouts/entries', { ...admin, body: event })).status).toBe(201);
    }
    const payout = await stack.request('POST', `/v1/cashback/source/${SOURCE}/payout`, {
      ...admin,
      body: { address: `0x${'1'.repeat(40)}`, chainId: 1, asset: 'ETH' },
    });
    expect(payout.status).toBe(201);
    payoutId = payout.body.id;
  });
  afterAll(() => stack?.close());

  function targets(r: Rng): Target[] {
    const id = () => (r.chance(0.6) ? r.pick(intentIds) : r.chance(0.5) ? randomUUID() : nastyPathSegment(r));
    const wallet = () => `0x${r.hex(40)}`;
    const event = () => ({
      id: randomUUID(),
      chainId: r.pick([1, 56, 137]),
      txHash: `0x${r.hex(64)}`,
      sourceId: r.chance(0.5) ? SOURCE : null,
      asset: r.pick(['ETH', 'USDC']),
      amount: `${r.int(1000)}.${r.int(100)}`,
      type: 'mev',
      time: new Date().toISOString(),
    });
    return [
      { method: 'POST', path: '/v1/intent', body: () => intentBody({ wallet: wallet() }) },
      { method: 'GET', path: `/v1/intent/${id()}` },
      { method: 'POST', path: '/v1/intents/search', body: () => ({ addresses: [wallet(), `0x${'5'.repeat(40)}`], status: ['pending'], limit: 10 }) },
      { method: 'POST', path: `/v1/intent/${id()}/cancel`, body: () => ({}) },
      { method: 'GET', path: '/v1/intents/events' },
      { method: 'GET', path: '/v1/intents/notifications/secret' },
      {
        method: 'POST',
        path: '/v1/simulate',
        body: () => ({
          chainId: 1,
          calls: [{ from: wallet(), to: wallet(), data: `0x${r.hex(8)}`, value: '0x1' }],
          overrides: { accounts: { [wallet()]: { balance: '1000' } } },
        }),
      },
      { method: 'GET', path: `/v1/payouts/tx/${r.chance(0.5) ? TX : nastyPathSegment(r)}` },
      { method: 'GET', path: `/v1/payouts${payoutsQuery(r)}` },
      { method: 'GET', path: `/v1/cashback/source/${r.chance(0.6) ? SOURCE : nastyPathSegment(r)}` },
      {
        method: 'POST',
        path: `/v1/cashback/source/${r.chance(0.6) ? SOURCE : nastyPathSegment(r)}/payout`,
        body: () => ({ address: wallet(), chainId: 1, asset: 'ETH' }),
      },
      { method: 'GET', path: `/v1/cashback/payout/${r.chance(0.6) ? payoutId : nastyPathSegment(r)}` },
      {
        method: 'POST',
        path: `/v1/cashback/payout/${r.chance(0.6) ? payoutId : randomUUID()}/status`,
        body: () => r.pick([{ status: 'TX_PENDING', txHash: TX }, { status: 'PAID' }, { status: 'TX_FAILED' }]),
      },
      { method: 'POST', path: '/v1/payouts/entries', body: event },
      { method: 'POST', path: '/v1/sources', body: () => ({ id: `src-${r.hex(6)}`, tenant: 'fuzz' }) },
      { method: 'GET', path: '/health' },
      { method: 'GET', path: '/ready' },
      { method: 'GET', path: '/health/services' },
      { method: 'GET', path: '/metrics' },
      { method: 'GET', path: '/openapi.json' },
      { method: 'GET', path: '/docs' },
      { method: 'GET', path: `/docs/assets/${r.pick(['nope.js', '..%2F..%2Fpackage.json', '%00', 'x'.repeat(300)])}` },
      { method: 'GET', path: r.pick(['/', '/v1', '/v1/', '/v2/intent', '/v1/intents', `/v1/intent/${randomUUID()}/cancel/extra`, '/%00', '/v1/%FF']) },
    ];
  }

  function nastyPathSegment(r: Rng): string {
    return r.pick([
      '%00',
      '%FF',
      `${randomUUID()}%00`,
      'a'.repeat(2000),
      '..%2F..%2Fetc%2Fpasswd',
      encodeURIComponent("' or 1=1 --"),
      '%E2%82',
      '%',
      'null',
      '-1',
      '0x',
      encodeURIComponent('🚀\u202e'),
      '%ED%A0%80',
    ]);
  }

  function payoutsQuery(r: Rng): string {
    const params: string[] = [];
    const n = r.int(4);
    for (let i = 0; i < n; i++) {
      const name = r.pick(['limit', 'chainId', 'status', 'sourceId', 'type', 'from', 'to', 'cursor', 'unknown', 'limit[]', '__proto__', '%00', '%FF']);
      const value = r.pick([
        ...NASTY_NUMBERS,
        'PENDING',
        'PAID',
        'mev',
        SOURCE,
        '2024-01-01T00:00:00Z',
        '0000-01-01T00:00:00Z',
        '2024-02-30T00:00:00Z',
        '99999-01-01T00:00:00Z',
        '%00',
        '%FF',
        '%ED%A0%80',
        '',
        'a'.repeat(500),
        'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      ]);
      params.push(`${name}=${/%/.test(value) ? value : encodeURIComponent(value)}`);
    }
    return params.length > 0 ? `?${params.join('&')}` : '';
  }

  /** A JSON value of a random type, as JSON text (numbers exactly as written). */
  function randomJsonText(r: Rng, depth = 0): string {
    switch (r.int(depth > 2 ? 4 : 6)) {
      case 0:
        return r.pick(NASTY_NUMBERS);
      case 1:
        return JSON.stringify(r.pick(NASTY_STRINGS));
      case 2:
        return r.pick(['null', 'true', 'false']);
      case 3:
        return JSON.stringify(r.pick(['0x1', `0x${r.hex(40)}`, randomUUID(), 'pending', 'ETH']));
      case 4:
        return `[${Array.from({ length: r.int(4) }, () => randomJsonText(r, depth + 1)).join(',')}]`;
      default:
        return `{${Array.from({ length: r.int(3) }, () => `${JSON.stringify(r.pick(NASTY_STRINGS.slice(0, 20)))}:${randomJsonText(r, depth + 1)}`).join(',')}}`;
    }
  }

  /** Nesting tried (issue 25, item 2): just over the limit up to 400,000 levels (what fits a body limit is parsed; the rest is a 413). */
  const DEPTHS = [65, 100, 1_000, 10_000, 30_000, 100_000, 400_000];

  /** JSON nested `depth` levels deep: arrays or objects, closed or never closed, alone or as a field of `valid`. */
  function deepJsonText(r: Rng, valid: unknown, depth: number): string {
    const [open, close] = r.pick([
      ['[', ']'],
      ['{"a":', '}'],
      ['[{"x":', '}]'],
    ] as const);
    const levels = open.length > 1 && open !== '{"a":' ? Math.ceil(depth / 2) : depth;
    const leaf = r.pick(['1', '"x"', 'null', '12345678901234567890123', '[]']);
    const nested = open.repeat(levels) + leaf + (r.chance(0.8) ? close.repeat(levels) : '');
    if (r.chance(0.5) || valid === undefined) return nested;
    const text = JSON.stringify(valid ?? {});
    return text === '{}' ? `{"deep":${nested}}` : `${text.slice(0, -1)},"${r.pick(['deep', 'overrides', 'calls', 'addresses'])}":${nested}}`;
  }

  /** The body as JSON text with one field replaced, removed or added; or the text itself broken. */
  function mutateBody(r: Rng, valid: unknown): Buffer {
    const value = JSON.parse(JSON.stringify(valid ?? {})) as Record<string, unknown>;
    let text: string;
    const fields = Object.keys(value);
    switch (r.int(10)) {
      case 9: // nested deeper than the gateway reads (MAX_JSON_DEPTH), up to 400,000 levels
        return Buffer.from(deepJsonText(r, valid, r.pick(DEPTHS)));
      case 0: // valid as is
        text = JSON.stringify(value);
        break;
      case 1: // a field removed
        if (fields.length > 0) delete value[r.pick(fields)];
        text = JSON.stringify(value);
        break;
      case 2:
      case 3: {
        // a field (or a new one) set to a random value, spliced in as text
        const field = fields.length > 0 && r.chance(0.8) ? r.pick(fields) : r.pick(['extra', '__proto__', 'constructor', '', 'a\u0000b']);
        const marker = `__FUZZ_${r.hex(8)}__`;
        value[field] = marker;
        text = JSON.stringify(value).replace(`"${marker}"`, randomJsonText(r));
        break;
      }
      case 4: // JSON text cut short or with a byte changed
        text = JSON.stringify(value);
        text = r.chance(0.5)
          ? text.slice(0, r.int(text.length))
          : text.slice(0, r.int(text.length)) + String.fromCharCode(r.int(128)) + text.slice(r.int(text.length));
        break;
      case 5: // syntax oddities
        text = r.pick([
          '',
          ' ',
          'null',
          '[]',
          '"x"',
          '42',
          '{',
          '}',
          '{"a":1,}',
          '{"a":1}{"b":2}',
          '{a:1}',
          "{'a':1}",
          '{"a":NaN}',
          '['.repeat(10_000),
          '{"a":'.repeat(3000) + '1' + '}'.repeat(3000),
          '{"a":1, "a":2}',
        ]);
        break;
      case 6: {
        // bytes that are not UTF-8 inside a string
        const json = JSON.stringify(value);
        const at = json.indexOf('"', 1);
        return Buffer.concat([Buffer.from(json.slice(0, at + 1)), Buffer.from([r.pick([0xff, 0xc0, 0xed, 0x80, 0xfe])]), Buffer.from(json.slice(at + 1))]);
      }
      case 7: // a whole random value
        text = randomJsonText(r);
        break;
      default: // deeply nested or wide
        text = r.chance(0.5) ? JSON.stringify({ ...value, wide: Array.from({ length: 2000 }, (_, i) => i) }) : JSON.stringify([value, value]);
    }
    return Buffer.from(text);
  }

  function authHeaders(r: Rng): Record<string, string> {
    const key = r.pick([...Object.values(keys), ...Object.values(keys), revoked]);
    switch (r.int(12)) {
      case 0:
        return {};
      case 1:
        return { 'x-api-key': key };
      case 2:
        return { authorization: `Bearer ${key}` };
      case 3:
        return { authorization: `${r.pick(['token', 'TOKEN', 'Token'])} ${key}` };
      case 4:
        return { authorization: r.pick(['Bearer', 'Bearer ', 'Basic dGk6', `Basic ${Buffer.from(`${key}:`).toString('base64')}`, `Bearer ${key} extra`, key]) };
      case 5:
        return { 'x-api-key': r.pick(['', ' ', 'nope', `ti_${'A'.repeat(43)}`, `${key}x`, key.slice(0, -1), 'k'.repeat(4000), "' or '1'='1"]) };
      case 6:
        return { 'x-api-key': key, authorization: `Bearer ti_${'B'.repeat(43)}` };
      default:
        return { 'x-api-key': key };
    }
  }

  function otherHeaders(r: Rng, hasBody: boolean): Record<string, string> {
    const h: Record<string, string> = {};
    if (hasBody || r.chance(0.1)) {
      h['content-type'] = r.chance(0.8)
        ? 'application/json'
        : r.pick([
            '',
            'text/plain',
            'application/json; charset=latin1',
            'application/json; charset=utf-16',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'a/b/c',
            'application/vnd.api+json',
            ';;;',
            'application/json'.repeat(50),
          ]);
      if (h['content-type'] === '') delete h['content-type'];
    }
    if (r.chance(0.2)) h['x-request-id'] = r.pick(['abc-123', 'x'.repeat(129), '<script>', 'a b', '"; DROP TABLE x; --', '', randomUUID()]);
    if (r.chance(0.15)) h['idempotency-key'] = r.pick([randomUUID(), '', ' ', 'k'.repeat(256), 'clé', 'a\tb', '\u00ff'.repeat(3)]);
    if (r.chance(0.05)) h['content-encoding'] = r.pick(['gzip', 'br', 'deflate', 'zstd', 'identity', 'gzip, gzip']);
    if (r.chance(0.05)) h.accept = r.pick(['text/html', '*/*', 'application/xml', 'x'.repeat(1000)]);
    if (r.chance(0.05)) h['x-forwarded-for'] = r.pick(['1.2.3.4', '::1', 'garbage', '999.999.999.999']);
    return h;
  }

  /** The deepest nesting of a body's brackets (strings ignored roughly: only to label the request). */
  function nestingOf(body: Buffer): number {
    let depth = 0;
    let most = 0;
    for (const byte of body) {
      if (byte === 0x5b || byte === 0x7b) most = Math.max(most, ++depth);
      else if (byte === 0x5d || byte === 0x7d) depth--;
    }
    return most;
  }

  /** A request as bytes: mostly well-formed HTTP with hostile content, sometimes malformed HTTP. */
  function generate(r: Rng): { kind: string; depth: number; bytes: Buffer; head: boolean } {
    const target = r.pick(targets(r));
    if (r.chance(0.06)) return { kind: 'malformed-http', depth: 0, bytes: malformedHttp(r, target), head: false };
    let method = target.method;
    if (r.chance(0.08)) method = r.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND']);
    let path = target.path;
    if (r.chance(0.1))
      path += `${path.includes('?') ? '&' : '?'}${r.pick(['q=%00', 'q=%FF', 'a=1&a=2', 'api_key=ti_x', 'x=' + 'y'.repeat(3000), '%E2%82=1', '=', '&&&', 'q=%ED%A0%80'])}`;
    let body: Buffer = Buffer.alloc(0);
    if (target.body && method !== 'GET' && method !== 'HEAD') body = mutateBody(r, target.body());
    else if (r.chance(0.05)) body = Buffer.from(r.chance(0.3) ? deepJsonText(r, undefined, r.pick(DEPTHS)) : randomJsonText(r));
    if (r.chance(0.01)) body = Buffer.alloc(70 * 1024 + r.int(2_000_000), 0x61); // over the limit
    const depth = nestingOf(body);
    const kind = depth > 64 ? 'deep' : body.length > 64 * 1024 ? 'too-large' : target.body ? 'body' : 'no-body';
    const headers = { ...authHeaders(r), ...otherHeaders(r, body.length > 0) };
    if (headers['content-encoding'] === 'gzip' && r.chance(0.7)) body = gzipSync(body);
    return { kind, depth, bytes: httpRequest(method, path, { ...headers, connection: 'close' }, body), head: method === 'HEAD' };
  }

  /**
   * Every route at each depth of DEPTHS, with the admin key (so each body is read) and the
   * route's own method (a GET too takes a body): arrays, 2 bytes a level, so 400,000 levels fit
   * /v1/simulate's 1 MiB; in a valid body or alone.
   */
  function deepOnEveryRoute(r: Rng): Array<ReturnType<typeof generate>> {
    return targets(r).flatMap((target) =>
      DEPTHS.map((depth) => {
        const method = target.method;
        const nested = '['.repeat(depth) + ']'.repeat(depth);
        const valid = target.body ? JSON.stringify(target.body()) : '{}';
        const body = Buffer.from(r.chance(0.5) ? nested : `${valid.slice(0, -1)}${valid === '{}' ? '' : ','}"deep":${nested}}`);
        const headers = { 'x-api-key': keys.admin!, 'content-type': 'application/json', connection: 'close' };
        return { kind: 'deep', depth: nestingOf(body), bytes: httpRequest(method, target.path, headers, body), head: false };
      }),
    );
  }

  function malformedHttp(r: Rng, target: Target): Buffer {
    const key = r.pick(Object.values(keys));
    const body = Buffer.from(JSON.stringify(target.body?.() ?? {}));
    const variants: Array<() => Buffer | string> = [
      () =>
        `${target.method} ${target.path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-length: ${body.length + 1 + r.int(50)}\r\ncontent-type: application/json\r\n\r\n${body}`,
      () =>
        `${target.method} ${target.path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-length: ${Math.max(0, body.length - 5)}\r\ncontent-type: application/json\r\n\r\n${body}GARBAGE`,
      () =>
        `${target.method} ${target.path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-length: ${r.pick(['-1', '1e3', 'abc', '99999999999999999999', ' 5', '0x10'])}\r\n\r\n{}`,
      () => `${target.method} ${target.path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-length: ${1024 * 1024 * 1024}\r\n\r\n{}`,
      () =>
        `${target.method} ${target.path} HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\n\r\n${r.pick(['zz\r\n{}\r\n0\r\n\r\n', '2\r\n{}\r\n', '5\r\n{}\r\n0\r\n\r\n', 'ffffffffffffffffff\r\n'])}`,
      () => `${target.method} ${target.path} HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\ncontent-length: 2\r\n\r\n{}`,
      () => `${target.method} ${target.path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\n`,
      () => `${target.method} ${target.path}\r\n\r\n`,
      () => `${r.pick(['G@T', 'GET GET', '', ' ', 'get'])} ${target.path} HTTP/1.1\r\nhost: x\r\n\r\n`,
      () => `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`,
      () => `GET ${target.path} HTTP/1.1\r\nhost: x\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`,
      () => `GET ${target.path} HTTP/1.1\r\nhost: x\r\nbad header\r\n\r\n`,
      () => Buffer.concat([Buffer.from(`GET ${target.path}`), Buffer.from([0x00, 0xff]), Buffer.from(' HTTP/1.1\r\nhost: x\r\n\r\n')]),
      () => Buffer.concat([Buffer.from(`GET ${target.path} HTTP/1.1\r\nhost: x\r\nx-api-key: `), Buffer.from([0xff, 0x01, 0x7f]), Buffer.from('\r\n\r\n')]),
      () => `GET ${target.path} HTTP/9.9\r\nhost: x\r\n\r\n`,
      () => `GET ${target.path} HTTP/1.0\r\nx-api-key: ${key}\r\n\r\n`,
      () =>
        `POST ${target.path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\nexpect: 100-continue\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    ];
    const chosen = r.pick(variants)();
    return Buffer.isBuffer(chosen) ? chosen : Buffer.from(chosen, 'latin1');
  }

  it(`answers ${REQUESTS} generated hostile requests, each within ${ANSWER_WITHIN_MS} ms, without a 5xx or a leak`, async () => {
    const r = prng(SEED);
    const requests = [...Array.from({ length: REQUESTS }, () => generate(r)), ...deepOnEveryRoute(r)];
    const statusCounts: Record<string, number> = {};
    const kindCounts: Record<string, number> = {};
    const deep = { requests: 0, deepest: 0, deepestRefused400: 0, statusCounts: {} as Record<string, number> };
    const failures: string[] = [];
    const host = hostname();
    const times: number[] = [];
    const started = performance.now();
    let next = 0;

    const check = (i: number, req: (typeof requests)[number], res: RawResponse) => {
      const status = res.status;
      statusCounts[String(status)] = (statusCounts[String(status)] ?? 0) + 1;
      kindCounts[req.kind] = (kindCounts[req.kind] ?? 0) + 1;
      if (req.kind === 'deep') {
        deep.requests++;
        deep.deepest = Math.max(deep.deepest, req.depth);
        if (status === 400) deep.deepestRefused400 = Math.max(deep.deepestRefused400, req.depth);
        deep.statusCounts[String(status)] = (deep.statusCounts[String(status)] ?? 0) + 1;
      }
      times.push(res.ms);
      const head = req.bytes.subarray(0, 200).toString('latin1').split('\r\n')[0];
      const fail = (why: string) => failures.push(`#${i} ${head} → ${status} (${res.ms.toFixed(0)} ms): ${why} ${res.body.slice(0, 300)}`);
      if (status === 0) return fail('no answer');
      if (res.ms > ANSWER_WITHIN_MS) fail(`answered after ${res.ms.toFixed(0)} ms`);
      if (status >= 500) fail('5xx');
      if (!res.headers['x-request-id']) fail('no x-request-id');
      const isError = status < 200 || status >= 300;
      if (isError && !req.head) {
        let body: any;
        try {
          body = JSON.parse(res.body);
        } catch {
          return fail('error body is not JSON');
        }
        if (!(body?.error === true && typeof body.name === 'string' && typeof body.message === 'string' && 'details' in body)) fail('not the error object');
        if (!/^application\/json/.test(res.headers['content-type'] ?? '')) fail('error without a JSON content type');
      }
      if (isError && status === 401 && !/Bearer realm=/.test(res.headers['www-authenticate'] ?? '')) fail('401 without WWW-Authenticate');
      if (status === 503 || status === 429) {
        if (!/^\d+$/.test(res.headers['retry-after'] ?? '')) fail('without Retry-After');
      }
      const inspected = /^application\/json/.test(res.headers['content-type'] ?? '') || isError;
      if (inspected) {
        if (STACK_FRAME.test(res.body)) fail('a stack trace');
        for (const leak of LEAKS) if (leak.test(res.body)) fail(`leaks ${leak}`);
        if (host.length >= 4 && res.body.includes(host)) fail('the host name');
      }
    };

    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) {
          const i = next++;
          const req = requests[i]!;
          const res = await rawRequest(stack.baseUrl, req.bytes, { timeoutMs: ANSWER_WITHIN_MS + 1_000, head: req.head });
          check(i, req, res);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    times.sort((a, b) => a - b);
    const ready = await within(stack.request('GET', '/ready'), 5_000, '/ready');
    const services = await within(stack.request('GET', '/health/services'), 5_000, '/health/services');
    const summary = {
      seed: SEED,
      requests: requests.length,
      seconds: Number(seconds.toFixed(1)),
      statusCounts: Object.fromEntries(Object.entries(statusCounts).sort()),
      kinds: kindCounts,
      deep: { ...deep, statusCounts: Object.fromEntries(Object.entries(deep.statusCounts).sort()) },
      answerMs: {
        p50: Math.round(times[Math.floor(times.length / 2)]!),
        p99: Math.round(times[Math.floor(times.length * 0.99)]!),
        max: Math.round(times.at(-1)!),
      },
      readyAfter: ready.status,
      servicesAfter: services.body,
      failures: failures.length,
    };
    const file = join(tmpdir(), 'tradeinfra-fuzz-summary.json');
    writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
    process.stdout.write(`\nfuzz (FUZZ_SEED=${SEED}): ${JSON.stringify(summary)}\nsummary written to ${file}\n`);

    expect(failures.slice(0, 30)).toEqual([]);
    expect(REQUESTS).toBeGreaterThanOrEqual(5_000);
    // Nesting up to 400,000 levels was sent, and the gateway read (and refused) some that deep: not all refused for size.
    expect(deep.deepest).toBeGreaterThanOrEqual(400_000);
    expect(deep.deepestRefused400).toBeGreaterThanOrEqual(100_000);
    expect(ready.status).toBe(200);
    expect(services.body.status).toBe('ok');
  }, 240_000);
});
