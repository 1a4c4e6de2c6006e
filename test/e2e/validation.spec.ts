import { within } from '@tradeinfra/test-support';
import { randomUUID } from 'node:crypto';
import { intentBody, randomWallet, Stack, TOKEN, WALLET, type HttpResponse, type RequestOptions } from './harness.js';

/*
 * The validation matrix of the public API, written from spec/service-interface.md and DESIGN.md
 * (Gateway, Errors, Intents): every bad input is a 4xx carrying the error object
 * `{error: true, name, message, details}` that names the field, never a 500, a hang, a partial
 * row, a stack trace or SQL.
 */

const MAX_WEI = (2n ** 256n - 1n).toString();
const OVER_WEI = (2n ** 256n).toString();
const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);

// EIP-55 test vectors (from the EIP): checksummed, and the same addresses in other cases.
const CHECKSUMMED = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];
const lower = (a: string) => a.toLowerCase();
const upper = (a: string) => '0x' + a.slice(2).toUpperCase();
/** Mixed case with a broken checksum: one letter's case flipped. */
const BAD_CHECKSUM = '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

const CREATION_FIELDS = [
  'chainId',
  'wallet',
  'tokenAddress',
  'bribe',
  'buyAmount',
  'expiry',
  'maxBuyTax',
  'maxSellTax',
  'minIn',
  'minOut',
  'minLiquidity',
  'feeBps',
  'feeRecipient',
  'firstOrFail',
  'maxSlippageBps',
  'gasTip',
] as const;
const REQUIRED_FIELDS = ['chainId', 'wallet', 'tokenAddress', 'bribe', 'buyAmount', 'expiry'] as const;
const OPTIONAL_FIELDS = CREATION_FIELDS.filter((f) => !(REQUIRED_FIELDS as readonly string[]).includes(f));
const AMOUNT_FIELDS = ['bribe', 'buyAmount', 'minIn', 'minOut', 'minLiquidity', 'gasTip'] as const;
const RECORD_FIELDS = ['id', 'status', 'createdAt', 'updatedAt', 'txHash', 'executedAt', 'statusReason'] as const;

const OMIT = Symbol('omit');
type Body = Record<string, unknown>;
/** A valid body with `field` set to `value` (or removed, for OMIT). */
function withField(field: string, value: unknown): Body {
  const body = intentBody();
  if (value === OMIT) delete body[field];
  else body[field] = value;
  return body;
}

const STACK_FRAME = /(\n\s+at\s)|(\bat\s+\S+\s+\([^)]*:\d+:\d+\))|(\bat\s+(file:\/\/)?\/\S+:\d+:\d+)/;
const LEAKS = ['SELECT', 'INSERT', 'node_modules', 'QueryFailedError', '/work/'];

/** The error object of DESIGN.md § Errors, with nothing internal in it. */
function expectErrorObject(res: HttpResponse, status: number | number[], name?: string): void {
  const statuses = Array.isArray(status) ? status : [status];
  // Status and body together, so a failure shows what came back.
  expect(`${res.status} ${res.text.slice(0, 800)}`).toMatch(new RegExp(`^(${statuses.join('|')}) `));
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(res.body).toEqual(expect.objectContaining({ error: true, name: expect.any(String), message: expect.any(String) }));
  expect(res.body).toHaveProperty('details');
  if (name) expect(res.body.name).toBe(name);
  expectNoLeaks(res);
}

function expectNoLeaks(res: HttpResponse): void {
  expect(res.text).not.toMatch(STACK_FRAME);
  for (const leak of LEAKS) expect(res.text).not.toContain(leak);
  expect(res.headers.get('x-request-id')).toBeTruthy();
}

/** 400 ValidationError whose details are a list of {path, message} naming `path`. */
function expectValidationError(res: HttpResponse, path?: string): void {
  expectErrorObject(res, 400, 'ValidationError');
  expect(Array.isArray(res.body.details)).toBe(true);
  for (const d of res.body.details) expect(d).toEqual({ path: expect.any(String), message: expect.any(String) });
  if (path !== undefined) {
    // The whole body rides along, so a failure shows what the details did say.
    const paths = res.body.details.map((d: { path: string }) => d.path);
    expect({ paths, body: res.text }).toEqual({ paths: expect.arrayContaining([path]), body: res.text });
  }
}

describe('gateway validation', () => {
  let stack: Stack;
  let key: string;
  let admin: Awaited<ReturnType<Stack['db']['admin']>>;

  const req = (method: string, path: string, options: RequestOptions = {}) =>
    within(stack.request(method, path, { key, ...options }), 10_000, `${method} ${path}`);

  async function counts(): Promise<{ intents: number; outbox: number; idempotency: number }> {
    const { rows } = await admin.query(
      `SELECT (SELECT count(*) FROM intent.intents)::int AS intents,
              (SELECT count(*) FROM intent.outbox)::int AS outbox,
              (SELECT count(*) FROM intent.idempotency_keys)::int AS idempotency`,
    );
    return rows[0];
  }

  /** Runs `act`, and checks it wrote nothing to the intent service's tables. */
  async function writesNothing<T>(act: () => Promise<T>): Promise<T> {
    const before = await counts();
    const result = await act();
    expect(await counts()).toEqual(before);
    return result;
  }

  async function createIntent(overrides: Body = {}): Promise<any> {
    const res = await req('POST', '/v1/intent', { body: intentBody(overrides) });
    expect(res.status).toBe(201);
    return res.body;
  }

  beforeAll(async () => {
    // A generous rate limit: this file fires hundreds of requests back to back.
    stack = await Stack.start({ RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' });
    key = await stack.createKey({ scopes: ['intents:read', 'intents:write'] });
    admin = await stack.db.admin();
  });
  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    await stack?.close();
  });

  describe('POST /v1/intent', () => {
    const bad: Array<[string, string, () => Body]> = [];
    const add = (path: string, desc: string, body: () => Body) => bad.push([path, desc, body]);

    for (const f of REQUIRED_FIELDS) {
      add(f, 'missing', () => withField(f, OMIT));
      add(f, 'null (required)', () => withField(f, null));
    }
    // chainId: an integer among the configured chains (1, 56, 137).
    for (const v of ['1', 1.5, 2, 10, 0, -1, true, [1], { id: 1 }]) add('chainId', JSON.stringify(v), () => withField('chainId', v));
    // Addresses: 0x + 40 hex, mixed case must checksum.
    for (const f of ['wallet', 'tokenAddress', 'feeRecipient']) {
      const cases: Array<[string, unknown]> = [
        ['number', 123],
        ['empty string', ''],
        ['bare 0x', '0x'],
        ['too short', '0x1234'],
        ['41 hex digits', WALLET + 'a'],
        ['39 hex digits', WALLET.slice(0, -1)],
        ['no 0x prefix', WALLET.slice(2)],
        ['non-hex', '0x' + 'g'.repeat(40)],
        ['bad EIP-55 checksum', BAD_CHECKSUM],
        ['trailing space', WALLET + ' '],
        ['array', [WALLET]],
        ['object', { address: WALLET }],
        ['boolean', true],
      ];
      for (const [desc, v] of cases) add(f, desc, () => ({ ...withField(f, v), ...(f === 'feeRecipient' ? { feeBps: 10 } : {}) }));
    }
    // Wei amounts: decimal integer strings 0..2^256-1.
    for (const f of AMOUNT_FIELDS) {
      const cases: Array<[string, unknown]> = [
        ['a JSON number', 1000],
        ['negative', '-1'],
        ['fraction', '1.5'],
        ['exponent', '1e18'],
        ['hex', '0x10'],
        ['empty string', ''],
        ['leading space', ' 1'],
        ['plus sign', '+1'],
        ['letters', 'abc'],
        ['fullwidth digits', '１２３'],
        ['2^256', OVER_WEI],
        ['2^256 + 2^255', (2n ** 256n + 2n ** 255n).toString()],
        ['300 digits', '9'.repeat(300)],
        ['boolean', true],
        ['object', { wei: '1' }],
      ];
      for (const [desc, v] of cases) add(f, desc, () => withField(f, v));
    }
    // expiry: integer seconds, in the future, at most 30 days ahead.
    const expiries: Array<[string, () => unknown]> = [
      ['a string', () => String(now() + 3600)],
      ['in the past', () => now() - 60],
      ['now', () => now()],
      ['zero', () => 0],
      ['negative', () => -1],
      ['31 days ahead', () => now() + 31 * DAY],
      ['30 days and an hour ahead', () => now() + 30 * DAY + 3600],
      ['in milliseconds', () => Date.now() + 3_600_000],
      ['a fraction', () => now() + 3600.5],
      ['year 10000', () => 253_402_300_800],
      ['boolean', () => true],
    ];
    for (const [desc, v] of expiries) add('expiry', desc, () => withField('expiry', v()));
    // Taxes: numbers 0..1.
    for (const f of ['maxBuyTax', 'maxSellTax']) {
      for (const v of [-0.01, 1.01, 2, -1, '0.5', true, [0.5]]) add(f, JSON.stringify(v), () => withField(f, v));
    }
    // Basis points: integers 0..10000.
    for (const f of ['feeBps', 'maxSlippageBps']) {
      for (const v of [-1, 10001, 1_000_000, 1.5, '100', true]) {
        add(f, JSON.stringify(v), () => ({ ...withField(f, v), ...(f === 'feeBps' ? { feeRecipient: WALLET } : {}) }));
      }
    }
    add('feeRecipient', 'missing while feeBps > 0', () => withField('feeBps', 100));
    add('feeRecipient', 'null while feeBps > 0', () => ({ ...withField('feeBps', 100), feeRecipient: null }));
    add('feeRecipient', 'missing while feeBps = 10000', () => withField('feeBps', 10000));
    // firstOrFail: a boolean.
    for (const v of ['true', 'false', 1, 0, 'yes']) add('firstOrFail', JSON.stringify(v), () => withField('firstOrFail', v));
    // Unknown fields, including the record's own fields a client must not set.
    for (const f of ['foo', 'chainID', 'status', 'id', 'createdAt', 'txHash', 'statusReason', 'tenant', 'tenantId']) {
      add(f, 'unknown field', () => withField(f, f === 'status' ? 'completed' : f === 'id' ? randomUUID() : 'x'));
    }

    it.each(bad)('400 for %s: %s', async (path, _desc, body) => {
      const res = await writesNothing(() => req('POST', '/v1/intent', { body: body() }));
      expectValidationError(res, path);
    });

    it('names every missing required field of an empty object', async () => {
      const res = await writesNothing(() => req('POST', '/v1/intent', { body: {} }));
      expectValidationError(res);
      const paths = res.body.details.map((d: { path: string }) => d.path);
      for (const f of REQUIRED_FIELDS) expect(paths).toContain(f);
    });

    it('names every bad field when several are bad at once', async () => {
      const res = await writesNothing(() =>
        req('POST', '/v1/intent', { body: intentBody({ chainId: 'one', bribe: -5, maxBuyTax: 7, feeBps: 20_000, foo: 1 }) }),
      );
      expectValidationError(res);
      const paths = res.body.details.map((d: { path: string }) => d.path);
      for (const f of ['chainId', 'bribe', 'maxBuyTax', 'feeBps', 'foo']) expect(paths).toContain(f);
    });

    it.each([
      ['chainId', `{"chainId":1e400,"wallet":"${WALLET}","tokenAddress":"${TOKEN}","bribe":"1","buyAmount":"1","expiry":EXPIRY}`],
      ['expiry', `{"chainId":1,"wallet":"${WALLET}","tokenAddress":"${TOKEN}","bribe":"1","buyAmount":"1","expiry":1e400}`],
      [
        'feeBps',
        `{"chainId":1,"wallet":"${WALLET}","tokenAddress":"${TOKEN}","bribe":"1","buyAmount":"1","expiry":EXPIRY,"feeBps":-1e400,"feeRecipient":"${WALLET}"}`,
      ],
      [
        '__proto__',
        `{"chainId":1,"wallet":"${WALLET}","tokenAddress":"${TOKEN}","bribe":"1","buyAmount":"1","expiry":EXPIRY,"__proto__":{"status":"completed"}}`,
      ],
      [
        'constructor',
        `{"chainId":1,"wallet":"${WALLET}","tokenAddress":"${TOKEN}","bribe":"1","buyAmount":"1","expiry":EXPIRY,"constructor":{"prototype":{}}}`,
      ],
    ])('400 for %s given as raw JSON an object model cannot hold', async (path, raw) => {
      const rawBody = raw.replace('EXPIRY', String(now() + 3600));
      const res = await writesNothing(() => req('POST', '/v1/intent', { rawBody, headers: { 'content-type': 'application/json' } }));
      expectValidationError(res, path);
    });

    it('reads big JSON integers exactly and refuses one beyond 2^53-1, saying so', async () => {
      const rawBody = `{"chainId":18446744073709551617,"wallet":"${WALLET}","tokenAddress":"${TOKEN}","bribe":"1","buyAmount":"1","expiry":${now() + 3600}}`;
      const res = await writesNothing(() => req('POST', '/v1/intent', { rawBody, headers: { 'content-type': 'application/json' } }));
      expectValidationError(res, 'chainId');
      expect(res.body.details).toEqual([{ path: 'chainId', message: expect.stringContaining('18446744073709551617 is beyond 2^53-1') }]);
    });

    it('returns the record: every creation field (unset ones null) plus id, status, createdAt, updatedAt, txHash, executedAt, statusReason', async () => {
      const before = await counts();
      const res = await req('POST', '/v1/intent', { body: intentBody() });
      expect(res.status).toBe(201);
      const record = res.body;
      for (const f of [...CREATION_FIELDS, ...RECORD_FIELDS]) expect(record).toHaveProperty(f);
      for (const f of OPTIONAL_FIELDS) expect({ [f]: record[f] }).toEqual({ [f]: null });
      expect(record).toMatchObject({ status: 'pending', txHash: null, executedAt: null, statusReason: null, chainId: 1, wallet: WALLET, tokenAddress: TOKEN });
      expect(record.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Number.isNaN(Date.parse(record.createdAt))).toBe(false);
      expect(Number.isNaN(Date.parse(record.updatedAt))).toBe(false);
      expect((await counts()).intents).toBe(before.intents + 1);
      expect((await req('GET', `/v1/intent/${record.id}`)).body).toEqual(record);
    });

    it('accepts every optional field as null (= not set)', async () => {
      const nulls = Object.fromEntries(OPTIONAL_FIELDS.map((f) => [f, null]));
      const record = await createIntent(nulls);
      for (const f of OPTIONAL_FIELDS) expect({ [f]: record[f] }).toEqual({ [f]: null });
    });

    it('accepts and returns every optional field', async () => {
      const optional = {
        maxBuyTax: 0.05,
        maxSellTax: 0.1,
        minIn: '5',
        minOut: '123456789012345678901234567890',
        minLiquidity: '100000',
        feeBps: 100,
        feeRecipient: lower(CHECKSUMMED[2]!),
        firstOrFail: true,
        maxSlippageBps: 1000,
        gasTip: '2000000000',
      };
      const record = await createIntent(optional);
      expect(record).toMatchObject({ ...optional, feeRecipient: CHECKSUMMED[2] });
    });

    it.each([
      ['lowercase', lower],
      ['uppercase', upper],
      ['checksummed', (a: string) => a],
    ])('accepts %s addresses and returns them EIP-55 checksummed', async (_desc, form) => {
      const [wallet, token, recipient] = CHECKSUMMED;
      const record = await createIntent({ wallet: form(wallet!), tokenAddress: form(token!), feeRecipient: form(recipient!), feeBps: 1 });
      expect(record).toMatchObject({ wallet, tokenAddress: token, feeRecipient: recipient });
      expect((await req('GET', `/v1/intent/${record.id}`)).body).toMatchObject({ wallet, tokenAddress: token, feeRecipient: recipient });
    });

    it.each([1, 56, 137])('accepts chainId %d', async (chainId) => {
      expect((await createIntent({ chainId })).chainId).toBe(chainId);
    });

    it('stores 2^256-1 in every wei amount exactly, while 2^256 is refused', async () => {
      const amounts = Object.fromEntries(AMOUNT_FIELDS.map((f) => [f, MAX_WEI]));
      const record = await createIntent(amounts);
      expect(record).toMatchObject(amounts);
      expect((await req('GET', `/v1/intent/${record.id}`)).body).toMatchObject(amounts);
      const { rows } = await admin.query(`SELECT row_to_json(i)::text AS json FROM intent.intents i WHERE id::text = $1`, [record.id]);
      expect(rows).toHaveLength(1);
      // Six exact copies in the row, as numbers or strings (never floats like 1.157920892373162e+77).
      expect(rows[0].json.split(MAX_WEI).length - 1).toBe(AMOUNT_FIELDS.length);
      expect(rows[0].json).not.toMatch(/e\+77/i);
      for (const f of AMOUNT_FIELDS) {
        const res = await writesNothing(() => req('POST', '/v1/intent', { body: intentBody({ ...amounts, [f]: OVER_WEI }) }));
        expectValidationError(res, f);
      }
    });

    it('accepts 0 in the wei amounts that may be zero', async () => {
      const zeros = { bribe: '0', minIn: '0', minOut: '0', minLiquidity: '0', gasTip: '0' };
      expect(await createIntent(zeros)).toMatchObject(zeros);
    });

    it('accepts the bounds of taxes and basis points, and feeBps 0 without a recipient', async () => {
      expect(await createIntent({ maxBuyTax: 0, maxSellTax: 1, feeBps: 0, maxSlippageBps: 10000 })).toMatchObject({
        maxBuyTax: 0,
        maxSellTax: 1,
        feeBps: 0,
        maxSlippageBps: 10000,
        feeRecipient: null,
      });
      expect(await createIntent({ maxBuyTax: 1, maxSellTax: 0, feeBps: 10000, feeRecipient: WALLET, maxSlippageBps: 0 })).toMatchObject({
        maxBuyTax: 1,
        maxSellTax: 0,
        feeBps: 10000,
        feeRecipient: WALLET,
        maxSlippageBps: 0,
      });
    });

    it('accepts an expiry just under 30 days ahead, and firstOrFail false', async () => {
      const expiry = now() + 30 * DAY - 120;
      expect(await createIntent({ expiry, firstOrFail: false })).toMatchObject({ expiry, firstOrFail: false });
    });

    it('accepts application/json with a charset', async () => {
      const res = await req('POST', '/v1/intent', { rawBody: JSON.stringify(intentBody()), headers: { 'content-type': 'application/json; charset=utf-8' } });
      expect(res.status).toBe(201);
    });

    it('does not reserve an Idempotency-Key on a refused body', async () => {
      const idem = randomUUID();
      const refused = await writesNothing(() => req('POST', '/v1/intent', { body: intentBody({ bribe: '-1' }), headers: { 'idempotency-key': idem } }));
      expectValidationError(refused, 'bribe');
      const ok = await req('POST', '/v1/intent', { body: intentBody(), headers: { 'idempotency-key': idem } });
      expect(ok.status).toBe(201);
    });
  });

  describe('POST /v1/intents/search', () => {
    const W = CHECKSUMMED[0]!;
    const bad: Array<[string, string, Body]> = [
      ['addresses', 'missing', {}],
      ['addresses', 'null', { addresses: null }],
      ['addresses', 'empty list', { addresses: [] }],
      ['addresses', '101 addresses', { addresses: Array.from({ length: 101 }, () => randomWallet()) }],
      ['addresses', 'a string, not a list', { addresses: W }],
      ['addresses', 'an object', { addresses: { 0: W } }],
      ['addresses.0', 'a number', { addresses: [123] }],
      ['addresses.0', 'null entry', { addresses: [null] }],
      ['addresses.0', 'too short', { addresses: ['0x123'] }],
      ['addresses.3', 'the 4th bad', { addresses: [W, lower(W), upper(W), 'not-an-address'] }],
      ['addresses.1', 'bad checksum', { addresses: [W, BAD_CHECKSUM] }],
      ['addresses.2', 'no 0x prefix', { addresses: [W, W, W.slice(2)] }],
      ['status', 'a string, not a list', { addresses: [W], status: 'pending' }],
      ['status.0', 'unknown status', { addresses: [W], status: ['bogus'] }],
      ['status.1', 'second unknown', { addresses: [W], status: ['pending', 'done'] }],
      ['status.0', 'wrong case', { addresses: [W], status: ['PENDING'] }],
      ['status.0', 'a number', { addresses: [W], status: [1] }],
      ['limit', '0', { addresses: [W], limit: 0 }],
      ['limit', '501', { addresses: [W], limit: 501 }],
      ['limit', '-1', { addresses: [W], limit: -1 }],
      ['limit', 'fraction', { addresses: [W], limit: 1.5 }],
      ['limit', 'a string', { addresses: [W], limit: '10' }],
      ['limit', 'huge', { addresses: [W], limit: 1e12 }],
      ['cursor', 'garbage', { addresses: [W], cursor: 'garbage' }],
      ['cursor', 'a number', { addresses: [W], cursor: 123 }],
      ['cursor', 'an object', { addresses: [W], cursor: { id: 1 } }],
      ['cursor', 'sql-looking', { addresses: [W], cursor: "' OR 1=1 --" }],
      ['foo', 'unknown field', { addresses: [W], foo: 1 }],
      ['wallet', 'unknown field (a plausible mistake)', { addresses: [W], wallet: W }],
      ['offset', 'unknown field', { addresses: [W], offset: 10 }],
    ];

    it.each(bad)('400 for %s: %s', async (path, _desc, body) => {
      const res = await writesNothing(() => req('POST', '/v1/intents/search', { body }));
      expectValidationError(res, path);
    });

    it('accepts 100 addresses in any case, every status, and the limit bounds', async () => {
      const wallet = CHECKSUMMED[3]!;
      const created = await createIntent({ wallet: lower(wallet) });
      const many = [upper(wallet), ...Array.from({ length: 99 }, () => randomWallet())];
      for (const body of [
        { addresses: many },
        { addresses: [lower(wallet)], status: ['pending', 'completed', 'expired', 'failed', 'cancelled', 'error'] },
        { addresses: [wallet], limit: 1 },
        { addresses: [upper(wallet)], limit: 500 },
      ]) {
        const res = await req('POST', '/v1/intents/search', { body });
        expect(res.status).toBe(200);
        expect(Array.isArray(res.body)).toBe(true);
        expect(res.body.map((i: { id: string }) => i.id)).toContain(created.id);
      }
    });

    it('defaults status to ["pending"] and limit to 100, with the next page in x-next-cursor', async () => {
      const wallet = randomWallet();
      const ids: string[] = [];
      for (let batch = 0; batch < 102; batch += 20) {
        const made = await Promise.all(Array.from({ length: Math.min(20, 102 - batch) }, () => createIntent({ wallet })));
        ids.push(...made.map((r) => r.id));
      }
      const cancelled = ids[0]!;
      expect((await req('POST', `/v1/intent/${cancelled}/cancel`)).status).toBe(200);
      const first = await req('POST', '/v1/intents/search', { body: { addresses: [wallet] } });
      expect(first.status).toBe(200);
      expect(first.body).toHaveLength(100);
      expect(first.body.every((i: { status: string }) => i.status === 'pending')).toBe(true);
      const cursor = first.headers.get('x-next-cursor');
      expect(cursor).toBeTruthy();
      const second = await req('POST', '/v1/intents/search', { body: { addresses: [wallet], cursor } });
      expect(second.status).toBe(200);
      expect(second.body).toHaveLength(1);
      expect(second.body[0].status).toBe('pending');
      expect(second.headers.get('x-next-cursor')).toBeNull();
      const all = await req('POST', '/v1/intents/search', { body: { addresses: [wallet], status: ['pending', 'cancelled'], limit: 500 } });
      expect(all.body).toHaveLength(102);
      expect(all.headers.get('x-next-cursor')).toBeNull();
    });
  });

  const BAD_IDS: Array<[string, string]> = [
    ['not a uuid', 'not-a-uuid'],
    ['digits', '123'],
    ['uuid with a trailing char', `${randomUUID()}x`],
    ['uuid with a non-hex char', '0190a5c4-0000-7000-8000-00000000000g'],
    ['uuid without dashes, one short', randomUUID().replace(/-/g, '').slice(0, 31)],
    ['sql injection', encodeURIComponent("1' OR '1'='1")],
    ['NUL byte', '%00'],
    ['uuid then NUL', `${randomUUID()}%00`],
    ['500 chars', 'a'.repeat(500)],
    ['unicode', encodeURIComponent('ünïcødé')],
    ['the word null', 'null'],
  ];

  describe('GET /v1/intent/:id', () => {
    it.each(BAD_IDS)('400 for a bad id: %s', async (_desc, id) => {
      const res = await writesNothing(() => req('GET', `/v1/intent/${id}`));
      expectValidationError(res, 'id');
    });

    it('404 NotFound for a well-formed id that does not exist', async () => {
      const res = await req('GET', `/v1/intent/${randomUUID()}`);
      expectErrorObject(res, 404, 'NotFound');
    });
  });

  describe('POST /v1/intent/:id/cancel', () => {
    it.each(BAD_IDS)('400 for a bad id: %s', async (_desc, id) => {
      const res = await writesNothing(() => req('POST', `/v1/intent/${id}/cancel`));
      expectValidationError(res, 'id');
    });

    it('404 NotFound for a well-formed id that does not exist', async () => {
      const res = await writesNothing(() => req('POST', `/v1/intent/${randomUUID()}/cancel`));
      expectErrorObject(res, 404, 'NotFound');
    });

    it('400 for an unknown field in the (empty) cancel body, and leaves the intent pending', async () => {
      const created = await createIntent();
      const before = await counts();
      const res = await req('POST', `/v1/intent/${created.id}/cancel`, { body: { foo: 1 } });
      expectValidationError(res, 'foo');
      expect((await req('GET', `/v1/intent/${created.id}`)).body.status).toBe('pending');
      expect(await counts()).toEqual(before);
    });

    it('400 for a malformed JSON cancel body, and leaves the intent pending', async () => {
      const created = await createIntent();
      const res = await writesNothing(() =>
        req('POST', `/v1/intent/${created.id}/cancel`, { rawBody: '{"reason":', headers: { 'content-type': 'application/json' } }),
      );
      expectValidationError(res);
      expect((await req('GET', `/v1/intent/${created.id}`)).body.status).toBe('pending');
    });

    it('cancels with no body and with an empty JSON object', async () => {
      const a = await createIntent();
      expect((await req('POST', `/v1/intent/${a.id}/cancel`)).status).toBe(200);
      const b = await createIntent();
      const res = await req('POST', `/v1/intent/${b.id}/cancel`, { body: {} });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('cancelled');
    });
  });

  describe('malformed bodies', () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const RAW: Array<[string, string]> = [
      ['truncated JSON', '{"chainId": 1,'],
      ['unquoted keys', '{chainId: 1}'],
      ['single quotes', "{'chainId': 1}"],
      ['trailing garbage', '{"chainId":1}garbage'],
      ['trailing comma', '{"chainId":1,}'],
      ['NaN literal', '{"chainId":NaN}'],
      ['comment', '{"chainId":1 /* one */}'],
      ['just a brace', '{'],
      ['not JSON at all', 'hello'],
      ['an array', '[]'],
      ['an array of objects', '[{"chainId":1}]'],
      ['a string', '"intent"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
      ['empty body', ''],
      ['whitespace only', '   '],
      ['deeply nested (5000 levels)', deep],
    ];
    const ROUTES: Array<[string, string]> = [
      ['POST', '/v1/intent'],
      ['POST', '/v1/intents/search'],
    ];
    const matrix = ROUTES.flatMap(([method, path]) => RAW.map(([desc, raw]) => [method, path, desc, raw] as const));

    it.each(matrix)('%s %s: 400 ValidationError for %s', async (method, path, _desc, rawBody) => {
      const res = await writesNothing(() => req(method, path, { rawBody, headers: { 'content-type': 'application/json' } }));
      expectValidationError(res);
    });

    const CONTENT_TYPES: Array<[string, string, (body: Body) => string]> = [
      ['text/plain', 'text/plain', (b) => JSON.stringify(b)],
      ['no content-type (fetch sends text/plain)', '', (b) => JSON.stringify(b)],
      [
        'form-urlencoded',
        'application/x-www-form-urlencoded',
        (b) => new URLSearchParams(Object.entries(b).map(([k, v]): [string, string] => [k, String(v)])).toString(),
      ],
      ['xml', 'application/xml', () => '<intent><chainId>1</chainId></intent>'],
      [
        'multipart',
        'multipart/form-data; boundary=xyz',
        (b) => `--xyz\r\nContent-Disposition: form-data; name="json"\r\n\r\n${JSON.stringify(b)}\r\n--xyz--\r\n`,
      ],
      ['octet-stream', 'application/octet-stream', (b) => JSON.stringify(b)],
      ['json in utf-16 charset', 'application/json; charset=utf-16', (b) => JSON.stringify(b)],
    ];
    const ctMatrix = ROUTES.flatMap(([method, path]) => CONTENT_TYPES.map(([desc, ct, make]) => [method, path, desc, ct, make] as const));

    it.each(ctMatrix)('%s %s: refused with a 4xx error object for %s, nothing written', async (method, path, _desc, contentType, make) => {
      const body = path === '/v1/intent' ? intentBody() : { addresses: [WALLET] };
      const res = await writesNothing(() => req(method, path, { rawBody: make(body), headers: contentType ? { 'content-type': contentType } : {} }));
      expectErrorObject(res, [400, 415]);
    });
  });

  describe('body size (default limit 64 KiB)', () => {
    const padded = (bytes: number, base: Body) => {
      const json = JSON.stringify({ ...base, pad: '' });
      return JSON.stringify({ ...base, pad: 'x'.repeat(Math.max(0, bytes - json.length)) });
    };

    it('413 PayloadTooLarge just over 64 KiB on every body-taking route', async () => {
      const id = (await createIntent()).id;
      for (const [path, base] of [
        ['/v1/intent', intentBody()],
        ['/v1/intents/search', { addresses: [WALLET] }],
        [`/v1/intent/${id}/cancel`, {}],
      ] as const) {
        const rawBody = padded(64 * 1024 + 1, base);
        expect(rawBody.length).toBe(64 * 1024 + 1);
        const res = await writesNothing(() => req('POST', path, { rawBody, headers: { 'content-type': 'application/json' } }));
        expectErrorObject(res, 413, 'PayloadTooLarge');
      }
      expect((await req('GET', `/v1/intent/${id}`)).body.status).toBe('pending');
    });

    it('a body just under the limit is read and validated (400 naming the extra field, not 413)', async () => {
      const rawBody = padded(64 * 1024 - 100, intentBody());
      const res = await writesNothing(() => req('POST', '/v1/intent', { rawBody, headers: { 'content-type': 'application/json' } }));
      expectValidationError(res, 'pad');
    });

    it('413 quickly for an 8 MiB body', async () => {
      const rawBody = padded(8 * 1024 * 1024, intentBody());
      const started = Date.now();
      const res = await writesNothing(() => req('POST', '/v1/intent', { rawBody, headers: { 'content-type': 'application/json' } }));
      expectErrorObject(res, 413, 'PayloadTooLarge');
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('413 for a chunked body (no Content-Length) that grows past the limit', async () => {
      const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"pad":"'));
        },
        pull(controller) {
          if (sent >= 64) {
            controller.enqueue(new TextEncoder().encode('"}'));
            controller.close();
            return;
          }
          sent++;
          controller.enqueue(chunk);
        },
      });
      const before = await counts();
      const res = await within(
        fetch(`${stack.baseUrl}/v1/intent`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: stream,
          duplex: 'half',
        } as RequestInit),
        10_000,
        'chunked POST',
      );
      const text = await res.text();
      expect({ status: res.status, text: text.slice(0, 300) }).toEqual({ status: 413, text: expect.any(String) });
      expect(JSON.parse(text)).toMatchObject({ error: true, name: 'PayloadTooLarge' });
      expect(await counts()).toEqual(before);
    });
  });

  describe('unknown routes', () => {
    it.each([
      ['GET', '/nope'],
      ['GET', '/v1/nope'],
      ['GET', '/v2/intent/00000000-0000-7000-8000-000000000000'],
      ['POST', '/v1/intent/00000000-0000-7000-8000-000000000000/nope'],
      ['GET', '/v1/intent/00000000-0000-7000-8000-000000000000/cancel/extra'],
      ['GET', '/v1/'],
      ['GET', '/v1/intent/..%2F..%2Fetc%2Fpasswd/x'],
    ])('%s %s → 404 NotFound', async (method, path) => {
      const res = await writesNothing(() => req(method, path));
      expectErrorObject(res, 404, 'NotFound');
    });

    it.each([
      ['GET', '/v1/intents/search'],
      ['PUT', '/v1/intent'],
      ['PUT', '/v1/intents'],
      ['GET', '/v1/intents/cancel'],
      ['DELETE', '/v1/intent/00000000-0000-7000-8000-000000000000'],
      ['PATCH', '/v1/intent/00000000-0000-7000-8000-000000000000'],
      ['GET', '/v1/intent/00000000-0000-7000-8000-000000000000/cancel'],
    ])('%s %s (wrong method) → 404/405 error object', async (method, path) => {
      const res = await writesNothing(() => req(method, path));
      expectErrorObject(res, [404, 405]);
    });
  });
});

describe('gateway validation with BODY_LIMIT_BYTES=2048', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await Stack.start({ BODY_LIMIT_BYTES: '2048' });
    key = await stack.createKey({ scopes: ['intents:write'] });
  });
  afterAll(() => stack?.close());

  it('honours the configured limit: 413 over it, 201 under it', async () => {
    const over = JSON.stringify(intentBody({ pad: 'x'.repeat(2100) }));
    const res = await within(stack.request('POST', '/v1/intent', { key, rawBody: over, headers: { 'content-type': 'application/json' } }), 10_000, 'POST');
    expectErrorObject(res, 413, 'PayloadTooLarge');
    const under = await stack.request('POST', '/v1/intent', { key, body: intentBody({ minOut: '1'.repeat(70) }) });
    expect(under.status).toBe(201);
    const [{ n }] = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM intent.intents');
    expect(n).toBe(1);
  });
});
