// An adversarial client of the payout ledger, written from the documents only (spec, DESIGN,
// contracts, the issue text), not from the implementation. It publishes its own MEV-capture
// events (duplicates, republishes with other content, out-of-order times, many sources and
// tenants, 18-decimal amounts), kills and restarts the payout service mid-stream, races payout
// requests against each other, against TX_FAILED releases and against ongoing ingestion, and
// audits the whole ledger to the wei at the end. Amounts are JSON numbers: they are read from the
// response text (never through JS floats) and summed as BigInt scaled by 10^18.
//
// Findings are collected per test ("problems") so one run lists every disagreement at once.
import { randomBytes, randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { MEV_CAPTURE_STREAM } from '@tradeinfra/contracts';
import { eventually } from '@tradeinfra/test-support';
import { Stack, type HttpResponse } from './harness.js';

// ---------------------------------------------------------------- exact JSON numbers

/** A JSON number kept as its source text. */
class RawNum {
  constructor(readonly text: string) {}
}

/** JSON.parse, except that every number becomes a RawNum holding its exact source text. */
function parseExact(text: string): any {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 500));
      if (!m) throw new Error(`bad number at ${i} in ${text.slice(i, i + 40)}`);
      out += JSON.stringify('\u0000' + m[0]);
      i += m[0].length;
    } else {
      out += c;
      i++;
    }
  }
  return JSON.parse(out, (_k, v) => (typeof v === 'string' && v.startsWith('\u0000') ? new RawNum(v.slice(1)) : v));
}

const SCALE = 18;
/** A decimal text (with optional exponent) as an integer scaled by 10^18; throws when finer. */
function scaled(text: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`not a decimal: ${text}`);
  const [, sign, int, frac = '', exp = '0'] = m;
  const digits = BigInt(int + frac);
  const shift = SCALE + Number(exp) - frac.length;
  let value: bigint;
  if (shift >= 0) value = digits * 10n ** BigInt(shift);
  else {
    const div = 10n ** BigInt(-shift);
    if (digits % div !== 0n) throw new Error(`more than ${SCALE} decimals: ${text}`);
    value = digits / div;
  }
  return sign ? -value : value;
}
function fmt(v: bigint): string {
  const neg = v < 0n;
  const s = (neg ? -v : v).toString().padStart(SCALE + 1, '0');
  const int = s.slice(0, -SCALE);
  const frac = s.slice(-SCALE).replace(/0+$/, '');
  return (neg ? '-' : '') + int + (frac ? '.' + frac : '');
}
function amountOf(raw: unknown, where: string): bigint {
  if (raw instanceof RawNum) return scaled(raw.text);
  throw new Error(`${where}: amount is not a JSON number: ${JSON.stringify(raw)}`);
}
/** amountOf, or -1 when the value is not an exact JSON number (reported by the caller's check). */
function amountOrMinus(raw: unknown, where: string, report: (msg: string) => void): bigint {
  try {
    return amountOf(raw, where);
  } catch (err) {
    report(String(err));
    return -1n;
  }
}
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

// ---------------------------------------------------------------- events

interface Ev {
  id: string;
  chainId: number;
  txHash: string;
  sourceId?: string | null;
  generatedBySourceId?: string | null;
  asset: string;
  amount: string;
  type: string;
  time: string;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const randHash = () => '0x' + hex(32);
const randAddress = () => '0x' + hex(20);
const rint = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)];
const digits = (n: number) => Array.from({ length: n }, () => String(rint(0, 9))).join('');

function randomAmount(asset: string): string {
  const r = Math.random();
  if (asset === 'USDC') return `${rint(1, 900)}.${digits(6)}`;
  if (r < 0.05) return '0.000000000000000001';
  if (r < 0.1) return String(rint(1, 50));
  if (r < 0.15) return `${rint(0, 3)}.500000000000000000`;
  return `${rint(0, 999)}.${digits(17)}${rint(1, 9)}`;
}

function randomTime(): string {
  const t = new Date(Date.now() - rint(0, 30 * 24 * 3600 * 1000));
  if (Math.random() < 0.1) {
    // same instant, written with a +05:30 offset
    const local = new Date(t.getTime() + 5.5 * 3600 * 1000).toISOString().replace('Z', '+05:30');
    return local;
  }
  return t.toISOString();
}

function makeEvent(o: Partial<Ev> = {}): Ev {
  const asset = o.asset ?? pick(['ETH', 'ETH', 'USDC']);
  const ev: Ev = {
    id: randomUUID(),
    chainId: pick([1, 56, 137]),
    txHash: randHash(),
    sourceId: null,
    asset,
    amount: randomAmount(asset),
    type: 'mev',
    time: randomTime(),
    ...o,
  };
  if (Math.random() < 0.3 && ev.generatedBySourceId === undefined) ev.generatedBySourceId = `gen-${rint(1, 5)}`;
  if (ev.sourceId === null && Math.random() < 0.5) delete ev.sourceId; // absent and null both mean "none"
  return ev;
}

/** What identifies the entry an event made (every event here has a unique combination). */
const keyOfEvent = (e: Ev) => `${e.txHash.toLowerCase()}|${e.sourceId ?? ''}|${e.chainId}|${e.asset}|${scaled(e.amount)}`;

// ---------------------------------------------------------------- checks

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/;
const ENTRY_FIELDS = ['id', 'asset', 'amount', 'sourceId', 'chainId', 'type', 'reference', 'generatedBySourceId', 'payoutId', 'createdAt', 'status'];
const ENTRY_REQUIRED = ENTRY_FIELDS.filter((f) => f !== 'generatedBySourceId');
const PAYOUT_FIELDS = ['id', 'sourceId', 'address', 'chainId', 'asset', 'amount', 'status', 'txHash', 'tx_hash'];

interface Entry {
  id: string;
  asset: string;
  amount: bigint;
  sourceId: string;
  chainId: number;
  type: string;
  reference: string;
  generatedBySourceId?: string;
  payoutId: string;
  createdAt: string;
  status: string;
  key: string;
}
interface PayoutView {
  id: string;
  sourceId: string;
  address: string;
  chainId: number;
  asset: string;
  amount: bigint;
  status: string;
  txHash: string | null;
}

describe('payout ledger, adversarial client', () => {
  let stack: Stack;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let dlqSub: Subscription;
  const dlq: { data: string; reason: string; headers: Record<string, string> }[] = [];

  /** Every problem found anywhere: the soft assertions of each test land here too. */
  let problems: string[] = [];
  const check = (ok: boolean, msg: string) => {
    if (!ok) problems.push(msg);
  };
  const flush = () => {
    const found = problems;
    problems = [];
    expect(found).toEqual([]);
  };

  // keys and tenants
  let admin: string;
  const tenant: Record<string, { name: string; key: string }> = {};
  let t1ReadOnly: string;
  let t1NoPayoutScope: string;
  /** source → tenant label (T1, T2, T3), as registered. */
  const owner: Record<string, string> = {};

  /** First valid content of every event id ever accepted (the ledger must hold exactly these). */
  const expected = new Map<string, Ev>();
  /** Ids of events that must never make an entry (invalid ones). */
  const invalidIds = new Set<string>();
  /** Every payout this client created, with the last status it observed. */
  const payouts = new Map<string, PayoutView>();

  // ---------------------------------------------------------------- helpers

  async function publish(ev: unknown, subject?: string): Promise<void> {
    const e = ev as Ev;
    await js.publish(subject ?? `mev.captured.${e.chainId}`, typeof ev === 'string' ? ev : JSON.stringify(ev));
  }
  async function publishValid(ev: Ev): Promise<void> {
    if (!expected.has(ev.id)) expected.set(ev.id, ev);
    await publish(ev);
  }

  function checkError(res: HttpResponse, status: number, name: string, what: string): void {
    const b = res.body;
    const ok =
      res.status === status &&
      b &&
      typeof b === 'object' &&
      !Array.isArray(b) &&
      b.error === true &&
      b.name === name &&
      typeof b.message === 'string' &&
      b.message.length > 0 &&
      'details' in b &&
      Object.keys(b).sort().join() === 'details,error,message,name';
    check(!!ok, `${what}: expected ${status} ${name} error object, got ${res.status} ${res.text.slice(0, 300)}`);
    if (ok && name === 'ValidationError') {
      check(
        Array.isArray(b.details) && b.details.length > 0 && b.details.every((d: any) => typeof d.path === 'string' && typeof d.message === 'string'),
        `${what}: ValidationError details should list {path, message}: ${res.text.slice(0, 300)}`,
      );
    }
    check(!/\bat \S+ \(|SELECT |INSERT |UPDATE |postgres|127\.0\.0\.1/i.test(res.text), `${what}: error body leaks internals: ${res.text.slice(0, 300)}`);
  }

  /** Validates one entry (spec fields, invariants) and returns it with an exact amount. */
  function toEntry(plain: any, exact: any, where: string): Entry {
    const keys = Object.keys(plain);
    check(
      keys.every((k) => ENTRY_FIELDS.includes(k)),
      `${where}: entry has fields beyond the spec: ${keys.join(',')}`,
    );
    check(
      ENTRY_REQUIRED.every((k) => k in plain),
      `${where}: entry misses fields: ${ENTRY_REQUIRED.filter((k) => !(k in plain)).join(',')}`,
    );
    check(typeof plain.id === 'string' && UUID_RE.test(plain.id), `${where}: id is not a UUID: ${plain.id}`);
    check(typeof plain.amount === 'number', `${where}: amount is not a JSON number: ${JSON.stringify(plain.amount)}`);
    check(typeof plain.sourceId === 'string', `${where}: sourceId is not a string: ${JSON.stringify(plain.sourceId)}`);
    check(Number.isInteger(plain.chainId), `${where}: chainId is not an integer`);
    check(plain.type === 'mev', `${where}: type ${plain.type}`);
    check(typeof plain.reference === 'string' && /^0x[0-9a-f]{64}$/.test(plain.reference), `${where}: reference ${plain.reference}`);
    check(
      plain.generatedBySourceId === undefined || (typeof plain.generatedBySourceId === 'string' && plain.generatedBySourceId.length > 0),
      `${where}: generatedBySourceId must be absent or a source id, got ${JSON.stringify(plain.generatedBySourceId)}`,
    );
    check(typeof plain.createdAt === 'string' && ISO_UTC.test(plain.createdAt), `${where}: createdAt not ISO 8601 UTC: ${plain.createdAt}`);
    check(plain.status === 'PENDING' || plain.status === 'PAID', `${where}: status ${plain.status}`);
    // The invariant: PENDING ⇔ payoutId "", PAID ⇔ payoutId set.
    if (plain.status === 'PENDING') check(plain.payoutId === '', `${where}: PENDING entry ${plain.id} with payoutId ${JSON.stringify(plain.payoutId)}`);
    if (plain.status === 'PAID')
      check(
        typeof plain.payoutId === 'string' && UUID_RE.test(plain.payoutId),
        `${where}: PAID entry ${plain.id} without a payoutId (${JSON.stringify(plain.payoutId)})`,
      );
    let amount = -1n;
    try {
      amount = amountOf(exact.amount, where);
    } catch (err) {
      check(false, String(err));
    }
    check(amount > 0n, `${where}: amount ${exact.amount?.text} not > 0`);
    return {
      ...plain,
      amount,
      key: `${plain.reference}|${plain.sourceId}|${plain.chainId}|${plain.asset}|${amount}`,
    };
  }

  async function getEntries(path: string, key: string): Promise<{ res: HttpResponse; entries: Entry[] }> {
    const res = await stack.request('GET', path, { key });
    if (res.status !== 200 || !Array.isArray(res.body)) return { res, entries: [] };
    const exact = parseExact(res.text);
    return { res, entries: res.body.map((p: any, i: number) => toEntry(p, exact[i], `GET ${path}`)) };
  }

  /** Every page of GET /v1/payouts with the given query. */
  async function listAll(key: string, query = '', limit = 500): Promise<Entry[]> {
    const all: Entry[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const q: string[] = [`limit=${limit}`];
      if (query) q.push(query);
      if (cursor) q.push(`cursor=${encodeURIComponent(cursor)}`);
      const { res, entries } = await getEntries(`/v1/payouts?${q.join('&')}`, key);
      if (res.status !== 200) throw new Error(`GET /v1/payouts?${q.join('&')} → ${res.status} ${res.text.slice(0, 200)}`);
      all.push(...entries);
      cursor = res.headers.get('x-next-cursor');
      if (!cursor) return all;
      check(entries.length === limit, `a page with x-next-cursor has ${entries.length} < limit ${limit} entries`);
    }
    throw new Error('paging does not end');
  }

  function toPayout(res: HttpResponse, where: string): PayoutView | null {
    const b = res.body;
    if (!b || typeof b !== 'object' || Array.isArray(b)) {
      check(false, `${where}: not a payout object: ${res.text.slice(0, 200)}`);
      return null;
    }
    check(
      Object.keys(b).sort().join() === [...PAYOUT_FIELDS].sort().join(),
      `${where}: payout fields ${Object.keys(b).join(',')}, expected ${PAYOUT_FIELDS.join(',')}`,
    );
    check(UUID_RE.test(b.id), `${where}: payout id not a UUID: ${b.id}`);
    check(['PENDING', 'TX_PENDING', 'PAID', 'TX_FAILED'].includes(b.status), `${where}: payout status ${b.status}`);
    check(typeof b.amount === 'number', `${where}: payout amount not a JSON number`);
    check(b.tx_hash === b.txHash, `${where}: tx_hash ${b.tx_hash} is not txHash ${b.txHash}`);
    if (b.status === 'PENDING') check(b.txHash === null, `${where}: PENDING payout with txHash ${b.txHash}`);
    if (b.status === 'TX_PENDING' || b.status === 'PAID')
      check(typeof b.txHash === 'string' && /^0x[0-9a-f]{64}$/.test(b.txHash), `${where}: ${b.status} payout without a tx hash`);
    let amount = -1n;
    try {
      amount = amountOf(parseExact(res.text).amount, where);
    } catch (err) {
      check(false, String(err));
    }
    check(amount > 0n, `${where}: payout amount not > 0`);
    return { ...b, amount };
  }

  async function requestPayout(source: string, key: string, chainId = 1, asset = 'ETH', address = randAddress()): Promise<HttpResponse> {
    const res = await stack.request('POST', `/v1/cashback/source/${source}/payout`, { key, body: { address, chainId, asset } });
    const where = `POST payout ${source} ${chainId}/${asset}`;
    if (res.status === 201) {
      const p = toPayout(res, where);
      if (p) {
        check(p.status === 'PENDING' && p.txHash === null, `${where}: new payout is ${p.status}/${p.txHash}`);
        check(p.sourceId === source && p.chainId === chainId && p.asset === asset, `${where}: payout of ${p.sourceId} ${p.chainId}/${p.asset}`);
        check(p.address.toLowerCase() === address.toLowerCase(), `${where}: address ${p.address} ≠ ${address}`);
        check(!payouts.has(p.id), `${where}: payout id ${p.id} handed out twice`);
        payouts.set(p.id, p);
      }
    } else if (res.status === 409) {
      checkError(res, 409, 'Conflict', where);
    } else {
      check(false, `${where}: expected 201 or 409, got ${res.status} ${res.text.slice(0, 200)}`);
    }
    return res;
  }

  async function transition(id: string, status: string, txHash?: string): Promise<HttpResponse> {
    const body: Record<string, string> = { status };
    if (txHash) body.txHash = txHash;
    const res = await stack.request('POST', `/v1/cashback/payout/${id}/status`, { key: admin, body });
    if (res.status === 200) {
      const p = toPayout(res, `transition ${id} → ${status}`);
      if (p) {
        check(p.status === status, `transition → ${status} answered status ${p.status}`);
        if (txHash) check(p.txHash === txHash, `transition → ${status}: txHash ${p.txHash} ≠ ${txHash}`);
        const known = payouts.get(id);
        if (known) check(p.amount === known.amount && p.sourceId === known.sourceId, `transition → ${status} changed the payout's amount/source`);
        payouts.set(id, p);
      }
    }
    return res;
  }

  async function getPayout(id: string, key = admin): Promise<PayoutView | null> {
    const res = await stack.request('GET', `/v1/cashback/payout/${id}`, { key });
    if (res.status !== 200) {
      check(false, `GET payout ${id}: ${res.status} ${res.text.slice(0, 200)}`);
      return null;
    }
    return toPayout(res, `GET payout ${id}`);
  }

  interface Balance {
    chainId: number;
    asset: string;
    pending: bigint;
    claimable: bigint;
    paid: bigint;
  }
  async function cashback(source: string, key = admin): Promise<{ res: HttpResponse; count?: number; latest?: string; balances: Map<string, Balance> }> {
    const res = await stack.request('GET', `/v1/cashback/source/${source}`, { key });
    const balances = new Map<string, Balance>();
    if (res.status !== 200) return { res, balances };
    const exact = parseExact(res.text);
    const list = exact.balances;
    check(Array.isArray(list), `cashback ${source}: no balances array: ${res.text.slice(0, 200)}`);
    for (const b of Array.isArray(list) ? list : []) {
      const chainId = b.chainId instanceof RawNum ? Number(b.chainId.text) : NaN;
      const bal: Balance = {
        chainId,
        asset: b.asset,
        pending: amountOrMinus(b.pending, `cashback ${source} pending`, (m) => check(false, m)),
        claimable: amountOrMinus(b.claimable, `cashback ${source} claimable`, (m) => check(false, m)),
        paid: amountOrMinus(b.paid, `cashback ${source} paid`, (m) => check(false, m)),
      };
      check(!balances.has(`${chainId}/${b.asset}`), `cashback ${source}: (${chainId}, ${b.asset}) listed twice`);
      balances.set(`${chainId}/${b.asset}`, bal);
    }
    return { res, count: res.body.entryCount, latest: res.body.latestEntryAt, balances };
  }

  /**
   * Waits until the payout service's durable consumer has nothing left to deliver and nothing
   * delivered unacknowledged (held by a killed replica, or nak'd): every published event has then
   * been applied or dead-lettered, and no redelivery can still change the ledger.
   */
  async function consumerDrained(what: string, timeoutMs = 40_000): Promise<void> {
    const jsm = await jetstreamManager(nc);
    await eventually(
      `${what}: consumer payout-service drained`,
      async () => {
        const info = await jsm.consumers.info(MEV_CAPTURE_STREAM, 'payout-service');
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
      timeoutMs,
      100,
    );
  }

  /** Waits until every expected event id of `sources` (or all) shows as an entry to admin. */
  async function waitIngested(what: string, timeoutMs = 30_000): Promise<Entry[]> {
    const want = new Set([...expected.values()].map(keyOfEvent));
    let last: Entry[] = [];
    let missing = want.size;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      last = await listAll(admin);
      const have = new Set(last.map((e) => e.key));
      missing = [...want].filter((k) => !have.has(k)).length;
      if (missing === 0) return last;
      await new Promise((r) => setTimeout(r, 300));
    }
    check(false, `${what}: ${missing} of ${want.size} events never became entries within ${timeoutMs} ms`);
    return last;
  }

  async function tableCounts(): Promise<Record<string, number>> {
    const rows = await stack.db.query<{ t: string; n: number }>(
      `select 'entries' t, count(*)::int n from payout.entries union all select 'payouts', count(*)::int from payout.payouts union all select 'sources', count(*)::int from payout.sources`,
    );
    return Object.fromEntries(rows.map((r) => [r.t, r.n]));
  }

  // ---------------------------------------------------------------- setup

  beforeAll(async () => {
    // The documents say the minimum is configurable but name no setting: PAYOUT_MINIMUMS is the
    // payout-service setting (a key of stack.payoutEnv), SYMBOL:amount pairs per its error message.
    // Likewise the operator-record route is not named anywhere: POST /v1/payouts/entries answers.
    stack = await Stack.start({ PAYOUT_MINIMUMS: 'ETH:0.001,USDC:5' });
    nc = await connect({ servers: stack.nats.url });
    js = jetstream(nc);
    dlqSub = nc.subscribe('mev.dlq');
    void (async () => {
      for await (const m of dlqSub) {
        const headers: Record<string, string> = {};
        if (m.headers) for (const [k, v] of m.headers) headers[k] = v.join(',');
        let reason = headers['x-dlq-reason'] ?? '';
        let data = m.string();
        try {
          const j = JSON.parse(m.string());
          if (j && typeof j === 'object') {
            reason ||= String(j.reason ?? '');
            if (typeof j.data === 'string') data = j.data;
          }
        } catch {
          // raw payload
        }
        dlq.push({ data, reason, headers });
      }
    })();
    const rate = { rateLimitPerSecond: 100_000 };
    admin = await stack.createKey({ scopes: ['admin'], ...rate });
    const suffix = hex(3);
    for (const t of ['T1', 'T2', 'T3']) {
      const name = `${t.toLowerCase()}-${suffix}`;
      tenant[t] = { name, key: await stack.createKey({ scopes: ['payouts:read', 'payouts:write'], tenant: name, ...rate }) };
    }
    t1ReadOnly = await stack.createKey({ scopes: ['payouts:read'], tenant: tenant.T1.name, ...rate });
    t1NoPayoutScope = await stack.createKey({ scopes: ['intents:read'], tenant: tenant.T1.name, ...rate });
    const register: [string, string][] = [
      ['srcA', 'T1'],
      ['srcB', 'T1'],
      ['srcC', 'T2'],
      ['srcD', 'T3'],
      ['R1', 'T1'],
      ['R2', 'T2'],
      ['R3', 'T3'],
      ['M1', 'T1'],
      ['empty1', 'T2'],
      ['P1', 'T2'],
      ['P2', 'T3'],
      ['P3', 'T1'],
      ['Z1', 'T1'],
    ];
    for (const [id, t] of register) {
      const res = await stack.request('POST', '/v1/sources', { key: admin, body: { id, tenant: tenant[t].name } });
      if (res.status !== 200 && res.status !== 201) throw new Error(`register ${id}: ${res.status} ${res.text}`);
      owner[id] = t;
    }
    // The ledger every test may read: entries of srcA–srcE and of no source, ingested in four
    // waves (so createdAt values have gaps to cut at). No test pays these sources out.
    for (let wave = 0; wave < 4; wave++) {
      await Promise.all(Array.from({ length: 10 }, () => publishValid(makeEvent({ sourceId: pick(['srcA', 'srcB', 'srcC', 'srcD', 'srcE', null]) }))));
      await waitIngested(`fixture wave ${wave + 1}`);
    }
    flush();
  }, 60_000);

  afterAll(async () => {
    dlqSub?.unsubscribe();
    await nc?.close().catch(() => undefined);
    await stack?.close();
  });

  // ---------------------------------------------------------------- 1. bad input

  test('bad hashes, ids, filters, bodies, scopes: 4xx error object, nothing written', async () => {
    const before = await tableCounts();
    const T1 = tenant.T1.key;
    const bad: [string, string, unknown, string | null, number, string][] = [];
    const add = (method: string, path: string, body: unknown, key: string | null, status = 400, name = 'ValidationError') =>
      bad.push([method, path, body, key, status, name]);

    // hashes
    for (const h of ['0x1234', 'ab'.repeat(32), '0x' + 'zz'.repeat(32), '0x' + 'a'.repeat(65), '0x' + 'a'.repeat(63), '0X' + 'ab'.repeat(32)])
      add('GET', `/v1/payouts/tx/${h}`, undefined, T1);
    // filters
    for (const q of [
      'status=paid',
      'status=FOO',
      'chainId=0',
      'chainId=abc',
      'chainId=-1',
      'chainId=1.5',
      'limit=0',
      'limit=501',
      'limit=abc',
      'limit=-3',
      'from=yesterday',
      'to=2024-13-01T00:00:00Z',
      'type=cashback',
      'cursor=not-a-cursor',
      'sourceId=has%20space',
      'bogus=1',
    ])
      add('GET', `/v1/payouts?${q}`, undefined, T1);
    // ids
    add('GET', '/v1/cashback/payout/123', undefined, T1);
    add('GET', '/v1/cashback/payout/' + 'g'.repeat(8) + '-0000-0000-0000-000000000000', undefined, T1);
    add('GET', `/v1/cashback/payout/${randomUUID()}`, undefined, T1, 404, 'NotFound');
    add('GET', `/v1/cashback/payout/${randomUUID()}`, undefined, admin, 404, 'NotFound');
    add('GET', `/v1/cashback/source/${'a'.repeat(65)}`, undefined, T1);
    add('GET', `/v1/cashback/source/bad%20id`, undefined, T1);
    // payout requests
    const okBody = { address: randAddress(), chainId: 1, asset: 'ETH' };
    for (const body of [
      {},
      { ...okBody, address: '0x1234' },
      { ...okBody, address: 'not an address' },
      { ...okBody, chainId: 10 },
      { ...okBody, chainId: '1' },
      { ...okBody, chainId: 0 },
      { ...okBody, asset: 'DOGE' },
      { ...okBody, asset: 'eth' },
      { ...okBody, extra: 1 },
      { address: okBody.address, chainId: 1 },
    ])
      add('POST', '/v1/cashback/source/srcA/payout', body, T1);
    // transitions
    const pid = randomUUID();
    for (const body of [
      { status: 'DONE' },
      { status: 'TX_PENDING' },
      { status: 'TX_PENDING', txHash: '0x12' },
      { status: 'PAID', extra: 1 },
      { status: 'PENDING' },
      {},
    ])
      add('POST', `/v1/cashback/payout/${pid}/status`, body, admin);
    add('POST', '/v1/cashback/payout/nope/status', { status: 'PAID' }, admin);
    add('POST', `/v1/cashback/payout/${pid}/status`, { status: 'TX_PENDING', txHash: randHash() }, admin, 404, 'NotFound');
    // sources
    for (const body of [
      { id: 'has space', tenant: tenant.T1.name },
      { id: 'ok1' },
      { id: 'ok1', tenant: '' },
      { id: 'ok1', tenant: tenant.T1.name, extra: true },
      { id: 'x'.repeat(65), tenant: tenant.T1.name },
      { tenant: tenant.T1.name },
    ])
      add('POST', '/v1/sources', body, admin);
    // operator records with bad events
    const good = () => makeEvent({ sourceId: 'srcA', chainId: 1, asset: 'ETH', amount: '1.25' });
    const badEvents: Record<string, unknown>[] = [
      { ...good(), amount: '-1' },
      { ...good(), amount: '1e18' },
      { ...good(), amount: '0x10' },
      { ...good(), amount: '01.5' },
      { ...good(), amount: '.5' },
      { ...good(), amount: '1.' },
      { ...good(), amount: ' 1' },
      { ...good(), amount: '0' },
      { ...good(), amount: '0.000000000000000000' },
      { ...good(), amount: 1.5 },
      { ...good(), amount: '1.' + '1'.repeat(19) },
      { ...good(), asset: 'USDC', amount: '1.1234567' },
      { ...good(), asset: 'DOGE' },
      { ...good(), chainId: 10 },
      { ...good(), chainId: 0 },
      { ...good(), txHash: '0x1234' },
      { ...good(), id: 'not-a-uuid' },
      { ...good(), type: 'cashback' },
      { ...good(), time: 'yesterday' },
      { ...good(), sourceId: 'has space' },
      { ...good(), extra: 1 },
    ];
    const missing = good() as unknown as Record<string, unknown>;
    delete missing.amount;
    badEvents.push(missing);
    for (const ev of badEvents) {
      if (typeof ev.id === 'string') invalidIds.add(ev.id);
      add('POST', '/v1/payouts/entries', ev, admin);
    }
    // auth and scopes
    add('GET', '/v1/payouts', undefined, null, 401, 'Unauthorized');
    add('GET', '/v1/payouts', undefined, 'nonsense-key', 401, 'Unauthorized');
    add('GET', '/v1/payouts', undefined, t1NoPayoutScope, 403, 'Forbidden');
    add('GET', '/v1/cashback/source/srcA', undefined, t1NoPayoutScope, 403, 'Forbidden');
    add('POST', '/v1/cashback/source/srcA/payout', okBody, t1ReadOnly, 403, 'Forbidden');
    const g = good();
    invalidIds.add(g.id);
    add('POST', '/v1/payouts/entries', g, T1, 403, 'Forbidden');
    add('POST', '/v1/sources', { id: 'evil', tenant: tenant.T1.name }, T1, 403, 'Forbidden');
    add('POST', `/v1/cashback/payout/${pid}/status`, { status: 'TX_PENDING', txHash: randHash() }, T1, 403, 'Forbidden');

    for (const [method, path, body, key, status, name] of bad) {
      const res = await stack.request(method, path, { key, body });
      checkError(res, status, name, `${method} ${path} ${body === undefined ? '' : JSON.stringify(body).slice(0, 120)}`);
    }
    // malformed JSON bodies
    for (const path of ['/v1/cashback/source/srcA/payout', '/v1/payouts/entries', '/v1/sources', `/v1/cashback/payout/${pid}/status`]) {
      const res = await stack.request('POST', path, { key: admin, rawBody: '{"address": ', headers: { 'content-type': 'application/json' } });
      checkError(res, 400, 'ValidationError', `POST ${path} malformed JSON`);
    }
    // a valid, upper-case hash: an empty array, not an error
    const up = await stack.request('GET', `/v1/payouts/tx/0x${'AB'.repeat(32)}`, { key: T1 });
    check(up.status === 200 && Array.isArray(up.body) && up.body.length === 0, `GET tx with upper-case hex: ${up.status} ${up.text.slice(0, 100)}`);
    // nothing to claim is a 409 too (M1 never has ETH on chain 1)
    const none = await requestPayout('M1', T1);
    check(none.status === 409, `payout with nothing to claim: ${none.status}`);

    check(
      JSON.stringify(await tableCounts()) === JSON.stringify(before),
      `bad input wrote rows: ${JSON.stringify(before)} → ${JSON.stringify(await tableCounts())}`,
    );
    const amountType = await stack.db.query<{ data_type: string }>(
      `select data_type from information_schema.columns where table_schema='payout' and table_name='entries' and column_name='amount'`,
    );
    check(amountType[0]?.data_type === 'numeric', `entries.amount is stored as ${amountType[0]?.data_type}, not numeric`);
    flush();
  });

  // ---------------------------------------------------------------- 2. ingestion under kills

  test('ingestion: duplicates, republishes, invalid events and payout-service kills lose and duplicate nothing', async () => {
    const sources = ['srcA', 'srcB', 'srcC', 'srcD', 'srcE', null];
    const mk = () => makeEvent({ sourceId: pick(sources) });
    const batch1 = Array.from({ length: 70 }, mk);
    // one transaction, several entries
    const multiTx = randHash();
    // (never 1 wei: srcA's would then be indistinguishable from the srcA entry below)
    for (const s of ['srcA', 'srcC', 'srcD']) batch1.push(makeEvent({ txHash: multiTx, sourceId: s, amount: `${rint(2, 50)}.5` }));
    batch1.push(makeEvent({ txHash: multiTx, sourceId: 'srcA', generatedBySourceId: 'srcB', asset: 'ETH', amount: '0.000000000000000001' }));
    // credited to T1's source, generated by T2's: it is T1's entry
    batch1.push(makeEvent({ sourceId: 'srcA', generatedBySourceId: 'srcC' }));
    await Promise.all(batch1.map(publishValid));
    await waitIngested('batch 1');

    // batch 2: kill the only replica half way, publish the rest while it is down
    const batch2 = Array.from({ length: 80 }, mk);
    const dupes = batch1.slice(0, 25);
    // Another amount for certain (a random one may repeat a 1-wei or whole original, which would look like its entry).
    const otherAmount = (e: Ev) => {
      for (;;) {
        const amount = randomAmount(e.asset);
        if (scaled(amount) !== scaled(e.amount)) return amount;
      }
    };
    const changed = batch1.slice(25, 40).map((e) => ({ ...e, amount: otherAmount(e), sourceId: 'srcC', time: new Date().toISOString() }));
    await Promise.all(batch2.slice(0, 40).map(publishValid));
    const kill = stack.payoutReplicas.shift()!.close();
    await Promise.all([...batch2.slice(40, 60).map(publishValid), kill]);
    await Promise.all([...batch2.slice(60).map(publishValid), ...dupes.map((e) => publish(e)), ...changed.map((e) => publish(e))]);
    // invalid events, while nobody consumes
    const invalid: [string, string][] = [];
    const inv = (o: Record<string, unknown>, subject = 'mev.captured.1') => {
      const ev = { ...makeEvent({ sourceId: 'srcA', chainId: 1, asset: 'ETH' }), ...o };
      invalidIds.add(ev.id as string);
      invalid.push([subject, JSON.stringify(ev)]);
    };
    inv({ amount: '-5' });
    inv({ amount: '1.' + '9'.repeat(19) });
    inv({ asset: 'USDC', amount: '3.0000001' });
    inv({ asset: 'DOGE' });
    inv({ chainId: 10 }, 'mev.captured.10');
    inv({ amount: '12abc' });
    inv({ amount: 7 });
    inv({ txHash: '0xdead' });
    inv({ type: 'rebate' });
    inv({ time: 'not a time' });
    inv({ surprise: true });
    invalid.push(['mev.captured.1', '{"id": "half a json']);
    invalid.push(['mev.captured.56', 'null']);
    for (const [subject, data] of invalid) await publish(data, subject);
    // with no replica the gateway answers 503 quickly
    const down = await stack.request('GET', '/v1/payouts', { key: admin });
    checkError(down, 503, 'ServiceUnavailable', 'GET /v1/payouts with no payout replica');

    // batch 3: two replicas compete on the durable consumer; one is killed mid-stream
    await stack.addPayoutReplica();
    await stack.addPayoutReplica();
    const batch3 = Array.from({ length: 80 }, mk);
    await Promise.all([
      ...batch3.slice(0, 40).map(publishValid),
      ...batch2.slice(0, 20).map((e) => publish(e)),
      // the same event several times at once, while two replicas consume
      ...batch3.slice(0, 20).flatMap((e) => [publish(e), publish(e), publish(e)]),
    ]);
    const kill2 = stack.payoutReplicas.shift()!.close();
    await Promise.all([...batch3.slice(40).map(publishValid), kill2, ...changed.slice(0, 5).map((e) => publish({ ...e, amount: '999' }))]);
    await stack.addPayoutReplica();
    const all = await waitIngested('batches 1-3 after kills', 40_000);
    await consumerDrained('batches 1-3: stray redeliveries of the killed replica'); // ack_wait brings them back
    const settled = await listAll(admin);

    // exactly one entry per event, matching its first content
    const counts = new Map<string, number>();
    for (const e of settled) counts.set(e.key, (counts.get(e.key) ?? 0) + 1);
    const wantKeys = new Set([...expected.values()].map(keyOfEvent));
    for (const [k, n] of counts) {
      check(n === 1, `entry ${k} exists ${n} times`);
      check(wantKeys.has(k), `entry ${k} matches no first-published event (a republish overwrote or added?)`);
    }
    check(settled.length === expected.size, `entries ${settled.length} ≠ valid events ${expected.size} (before settle: ${all.length})`);
    for (const e of changed) check(!counts.has(keyOfEvent(e)), `republished content of event ${e.id} made/changed an entry`);
    check(new Set(settled.map((e) => e.id)).size === settled.length, 'entry ids repeat');
    // field contents
    const byKey = new Map(settled.map((e) => [e.key, e]));
    // (its own events: no test pays srcA–srcE out, other tests' sources may be paid)
    for (const ev of [...batch1, ...batch2, ...batch3]) {
      const e = byKey.get(keyOfEvent(ev));
      if (!e) continue;
      check(e.type === ev.type && e.status === 'PENDING' && e.payoutId === '', `entry of ${ev.id}: ${e.type}/${e.status}/${e.payoutId}`);
      check(
        (e.generatedBySourceId ?? null) === (ev.generatedBySourceId ?? null),
        `entry of ${ev.id}: generatedBySourceId ${e.generatedBySourceId} ≠ ${ev.generatedBySourceId}`,
      );
    }
    const multi = await getEntries(`/v1/payouts/tx/${multiTx.toUpperCase().replace('0X', '0x')}`, admin);
    check(
      multi.res.status === 200 && multi.entries.length === 4,
      `GET tx with 4 entries (upper-case hash): ${multi.res.status}, ${multi.entries.length} entries`,
    );

    // the dead-letter subject got every invalid event with its reason, and the consumer went on
    await eventually('invalid events in the DLQ', () => dlq.length >= invalid.length, 10_000).catch(() => undefined);
    for (const [, data] of invalid) {
      const id = /"id":"([0-9a-f-]{36})"/.exec(data)?.[1];
      const hit = dlq.find((d) => d.data === data || (!!id && d.data.includes(id)));
      check(!!hit, `invalid event not dead-lettered: ${data.slice(0, 100)}`);
      if (hit) check(hit.reason.length > 0, `dead letter without a reason: ${data.slice(0, 80)}`);
    }
    check(dlq.length === invalid.length, `DLQ has ${dlq.length} messages for ${invalid.length} invalid events`);
    // an amount at the contract's 80-character limit: an exact entry, or a dead letter; the consumer goes on
    const huge = makeEvent({ sourceId: 'srcHuge', chainId: 1, asset: 'ETH', amount: '9'.repeat(61) + '.123456789012345678' });
    await publish(huge);
    await publishValid(makeEvent({ sourceId: 'srcB' }));
    await waitIngested('an event after a huge amount', 15_000);
    const hugeEntries = await getEntries(`/v1/payouts/tx/${huge.txHash}`, admin);
    if (hugeEntries.entries.length === 1) {
      check(hugeEntries.entries[0].amount === scaled(huge.amount), `huge amount stored as ${fmt(hugeEntries.entries[0].amount)}`);
      expected.set(huge.id, huge);
    } else {
      check(hugeEntries.entries.length === 0, `huge amount made ${hugeEntries.entries.length} entries`);
      invalidIds.add(huge.id);
      await eventually('huge amount dead-lettered', () => dlq.some((d) => d.data.includes(huge.id)), 5_000).catch(() => undefined);
      const d = dlq.find((x) => x.data.includes(huge.id));
      check(!!d && d.reason.length > 0, 'an event with a huge amount neither became an entry nor a dead letter with a reason');
    }
    const huge2 = makeEvent({ sourceId: 'srcHuge', chainId: 1, asset: 'ETH', amount: '8'.repeat(61) + '.000000000000000001' });
    const rec = await stack.request('POST', '/v1/payouts/entries', { key: admin, body: huge2 });
    if (rec.status === 201) {
      check(toEntry(rec.body, parseExact(rec.text), 'record huge').amount === scaled(huge2.amount), 'recorded huge amount not exact');
      expected.set(huge2.id, huge2);
    } else {
      checkError(rec, 400, 'ValidationError', 'record of a huge amount');
      invalidIds.add(huge2.id);
    }
    const rows = await stack.db.query<{ event_id: string; n: number }>(`select event_id::text, count(*)::int n from payout.entries group by 1`);
    const dbIds = new Map(rows.map((r) => [r.event_id, r.n]));
    for (const id of expected.keys()) check(dbIds.get(id) === 1, `event ${id}: ${dbIds.get(id) ?? 0} rows`);
    for (const id of invalidIds) check(!dbIds.has(id), `invalid event ${id} made a row`);
    flush();
  }, 80_000);

  // ---------------------------------------------------------------- 3. operator records

  test('operator records through the gateway: same idempotency as the stream', async () => {
    const rec = (ev: unknown) => stack.request('POST', '/v1/payouts/entries', { key: admin, body: ev });
    const x = makeEvent({ sourceId: 'srcB', chainId: 137, asset: 'ETH', amount: '0.123456789012345678' });
    expected.set(x.id, x);
    const first = await rec(x);
    check(first.status === 201, `record → ${first.status} ${first.text.slice(0, 200)}`);
    const xe = first.status === 201 ? toEntry(first.body, parseExact(first.text), 'record') : null;
    if (xe) {
      check(xe.key === keyOfEvent(x), `recorded entry ${xe.key} ≠ event ${keyOfEvent(x)}`);
      check(xe.status === 'PENDING' && xe.payoutId === '', 'recorded entry not PENDING');
    }
    const again = await rec(x);
    check([200, 201].includes(again.status), `record replay → ${again.status} ${again.text.slice(0, 200)}`);
    if (again.status < 300 && xe) check(again.body?.id === xe.id, `record replay answered another entry ${again.body?.id}`);
    const other = await rec({ ...x, amount: '5', sourceId: 'srcC' });
    check([200, 201, 409].includes(other.status), `record same id, other content → ${other.status}`);
    if (other.status < 300 && xe) {
      const oe = toEntry(other.body, parseExact(other.text), 'record same id, other content');
      check(oe.id === xe.id && oe.key === xe.key, `same id, other content answered ${other.text.slice(0, 200)}`);
    }
    // the stream republishing an operator-recorded id makes nothing
    await publish(x);
    await publish({ ...x, amount: '6' });
    // racing operator records of one event
    const y = makeEvent({ sourceId: 'srcD', chainId: 56, asset: 'USDC' });
    expected.set(y.id, y);
    const race = await Promise.all(Array.from({ length: 12 }, () => rec(y)));
    check(
      race.every((r) => [200, 201].includes(r.status)),
      `racing records: ${race.map((r) => r.status).join(',')}`,
    );
    check(new Set(race.filter((r) => r.status < 300).map((r) => r.body.id)).size === 1, `racing records answered several entry ids`);
    // operator records of ids the stream already made
    const streamed = [...expected.values()].filter((e) => e.sourceId === 'srcA').slice(0, 5);
    for (const e of streamed) {
      const r = await rec(e);
      check([200, 201].includes(r.status), `record of a streamed event → ${r.status}`);
    }
    await consumerDrained('after operator records');
    const all = await listAll(admin);
    check(all.length === expected.size, `after operator records: ${all.length} entries for ${expected.size} events`);
    check(
      all.filter((e) => e.key === keyOfEvent(x)).length === 1 && all.filter((e) => e.key === keyOfEvent(y)).length === 1,
      'operator-recorded events do not have exactly one entry',
    );
    flush();
  });

  // ---------------------------------------------------------------- 4. tenancy

  test('tenancy: a tenant sees only its sources; unregistered sources are admin-only until registered', async () => {
    const evs = [...expected.values()];
    const tenantOf = (ev: Ev) => (ev.sourceId ? owner[ev.sourceId] : undefined);
    const labels = ['T1', 'T2', 'T3'];
    // GET /v1/payouts/tx/:hash per event, as every tenant
    const jobs = evs.flatMap((ev) =>
      labels.map((t) => async () => {
        const { res, entries } = await getEntries(`/v1/payouts/tx/${ev.txHash}`, tenant[t].key);
        check(res.status === 200, `tx ${ev.txHash} as ${t}: ${res.status}`);
        const sees = entries.some((e) => e.key === keyOfEvent(ev));
        check(sees === (tenantOf(ev) === t), `tx of event ${ev.id} (source ${ev.sourceId ?? 'none'}, owner ${tenantOf(ev) ?? 'none'}) as ${t}: sees=${sees}`);
        for (const e of entries) check(owner[e.sourceId] === t, `${t} sees entry ${e.id} of source "${e.sourceId}"`);
      }),
    );
    for (let i = 0; i < jobs.length; i += 30) await Promise.all(jobs.slice(i, i + 30).map((j) => j()));
    // whole lists
    for (const t of labels) {
      const list = await listAll(tenant[t].key);
      const want = evs
        .filter((e) => tenantOf(e) === t)
        .map(keyOfEvent)
        .sort();
      check(JSON.stringify(list.map((e) => e.key).sort()) === JSON.stringify(want), `${t} list: ${list.length} entries, expected ${want.length}`);
    }
    // another tenant's source: 404 for cashback and payouts, nothing in filtered lists
    for (const [path, method] of [
      ['/v1/cashback/source/srcC', 'GET'],
      ['/v1/cashback/source/srcE', 'GET'],
      ['/v1/cashback/source/never-seen', 'GET'],
    ] as const) {
      const res = await stack.request(method, path, { key: tenant.T1.key });
      checkError(res, 404, 'NotFound', `T1 ${method} ${path}`);
    }
    const steal = await stack.request('POST', '/v1/cashback/source/srcC/payout', {
      key: tenant.T1.key,
      body: { address: randAddress(), chainId: 1, asset: 'ETH' },
    });
    checkError(steal, 404, 'NotFound', "T1 requests a payout of T2's source");
    const filtered = await getEntries('/v1/payouts?sourceId=srcC', tenant.T1.key);
    check(
      (filtered.res.status === 200 && filtered.entries.length === 0) || filtered.res.status === 404,
      `T1 lists srcC: ${filtered.res.status} with ${filtered.entries.length} entries`,
    );
    // admin sees srcE and source-less entries; T3 gets srcE once registered
    const srcE = evs.filter((e) => e.sourceId === 'srcE');
    const adminE = await listAll(admin, 'sourceId=srcE');
    check(adminE.length === srcE.length, `admin sees ${adminE.length} of ${srcE.length} srcE entries`);
    const none = (await listAll(admin)).filter((e) => e.sourceId === '');
    check(none.length === evs.filter((e) => !e.sourceId).length, `admin sees ${none.length} source-less entries`);
    const reg = await stack.request('POST', '/v1/sources', { key: admin, body: { id: 'srcE', tenant: tenant.T3.name } });
    check(reg.status === 200 || reg.status === 201, `register srcE: ${reg.status}`);
    owner.srcE = 'T3';
    const t3E = await listAll(tenant.T3.key, 'sourceId=srcE');
    check(t3E.length === srcE.length, `T3 sees ${t3E.length} of ${srcE.length} srcE entries after registering it`);
    const cbE = await cashback('srcE', tenant.T3.key);
    check(cbE.res.status === 200 && cbE.count === srcE.length, `T3 cashback of srcE: ${cbE.res.status} count ${cbE.count}`);
    for (const t of ['T1', 'T2']) {
      const res = await stack.request('GET', '/v1/cashback/source/srcE', { key: tenant[t].key });
      checkError(res, 404, 'NotFound', `${t} reads srcE cashback`);
    }
    flush();
  }, 60_000);

  // ---------------------------------------------------------------- 5. listing and cashback

  test('listing: filters, keyset paging newest first, cashback balances to the wei', async () => {
    const all = await listAll(admin);
    for (let i = 1; i < all.length; i++)
      check(Date.parse(all[i - 1].createdAt) >= Date.parse(all[i].createdAt), `list not newest first at ${i}: ${all[i - 1].createdAt} < ${all[i].createdAt}`);
    // paging with a small limit gives the same sequence
    for (const [key, label] of [
      [admin, 'admin'],
      [tenant.T1.key, 'T1'],
    ] as const) {
      const full = await listAll(key);
      const paged = await listAll(key, '', 7);
      check(
        JSON.stringify(paged.map((e) => e.id)) === JSON.stringify(full.map((e) => e.id)),
        `${label}: pages of 7 differ from one page (${paged.length} vs ${full.length})`,
      );
    }
    const same = (got: Entry[], want: Entry[], what: string) =>
      check(
        JSON.stringify(got.map((e) => e.id).sort()) === JSON.stringify(want.map((e) => e.id).sort()),
        `${what}: ${got.length} entries, expected ${want.length}`,
      );
    same(
      await listAll(admin, 'chainId=56'),
      all.filter((e) => e.chainId === 56),
      'chainId=56',
    );
    same(
      await listAll(admin, 'sourceId=srcA'),
      all.filter((e) => e.sourceId === 'srcA'),
      'sourceId=srcA',
    );
    same(await listAll(admin, 'type=mev'), all, 'type=mev');
    same(
      await listAll(admin, 'status=PENDING'),
      all.filter((e) => e.status === 'PENDING'),
      'status=PENDING',
    );
    same(
      await listAll(admin, 'status=PAID'),
      all.filter((e) => e.status === 'PAID'),
      'status=PAID',
    );
    same(
      await listAll(tenant.T2.key, 'chainId=137&sourceId=srcC'),
      all.filter((e) => e.chainId === 137 && e.sourceId === 'srcC'),
      'T2 chainId=137&sourceId=srcC',
    );
    // time range on createdAt: from inclusive, to exclusive; cut inside a gap of ≥ 2 ms
    const times = [...new Set(all.map((e) => Date.parse(e.createdAt)))].sort((a, b) => a - b);
    const gap = times.findIndex((t, i) => i > 0 && t - times[i - 1] >= 2 && i >= times.length / 3);
    check(gap > 0, 'no gap of 2 ms between createdAt values to cut at');
    if (gap > 0) {
      const cut = new Date(times[gap - 1] + 1).toISOString();
      const after = all.filter((e) => Date.parse(e.createdAt) >= Date.parse(cut));
      const before = all.filter((e) => Date.parse(e.createdAt) < Date.parse(cut));
      same(await listAll(admin, `from=${encodeURIComponent(cut)}`), after, `from=${cut}`);
      same(await listAll(admin, `to=${encodeURIComponent(cut)}`), before, `to=${cut}`);
      same(
        await listAll(
          admin,
          `from=${encodeURIComponent(times.length > 0 ? new Date(times[0]).toISOString() : cut)}&to=${encodeURIComponent(cut)}&sourceId=srcB`,
        ),
        before.filter((e) => e.sourceId === 'srcB'),
        'from&to&sourceId',
      );
    }
    // default page size 100, with a cursor when there is more
    const first = await getEntries('/v1/payouts', admin);
    check(
      all.length <= 100 || (first.entries.length === 100 && !!first.res.headers.get('x-next-cursor')),
      `default page: ${first.entries.length} entries, cursor ${first.res.headers.get('x-next-cursor')}`,
    );
    // a registered source without entries
    const empty = await cashback('empty1', tenant.T2.key);
    check(
      empty.res.status === 200 && empty.count === 0 && empty.balances.size === 0 && (empty.latest ?? null) === null,
      `cashback of a source without entries: ${empty.res.status} ${empty.res.text.slice(0, 200)}`,
    );
    // cashback: per (chainId, asset) sums of the entries, to the wei
    for (const s of ['srcA', 'srcB', 'srcC', 'srcD', 'srcE']) {
      const mine = all.filter((e) => e.sourceId === s);
      const cb = await cashback(s, owner[s] ? tenant[owner[s]].key : admin);
      check(cb.res.status === 200, `cashback ${s}: ${cb.res.status}`);
      check(cb.count === mine.length, `cashback ${s}: entryCount ${cb.count} ≠ ${mine.length}`);
      const latest = mine
        .map((e) => e.createdAt)
        .sort()
        .at(-1);
      check(!!latest && !!cb.latest && Date.parse(cb.latest) === Date.parse(latest), `cashback ${s}: latest ${cb.latest} ≠ ${latest}`);
      const groups = new Map<string, bigint>();
      for (const e of mine) groups.set(`${e.chainId}/${e.asset}`, (groups.get(`${e.chainId}/${e.asset}`) ?? 0n) + e.amount);
      check(
        JSON.stringify([...cb.balances.keys()].sort()) === JSON.stringify([...groups.keys()].sort()),
        `cashback ${s}: groups ${[...cb.balances.keys()]} ≠ ${[...groups.keys()]}`,
      );
      for (const [g, total] of groups) {
        const b = cb.balances.get(g);
        check(
          !!b && b.pending === total && b.claimable === total && b.paid === 0n,
          `cashback ${s} ${g}: ${b ? `${fmt(b.pending)}/${fmt(b.claimable)}/${fmt(b.paid)}` : 'missing'}, expected pending=claimable=${fmt(total)}, paid 0`,
        );
      }
      // and the events, independently of the entries
      const evTotal = sum([...expected.values()].filter((e) => e.sourceId === s).map((e) => scaled(e.amount)));
      check(sum([...cb.balances.values()].map((b) => b.pending)) === evTotal, `cashback ${s}: pending total ≠ events total ${fmt(evTotal)}`);
    }
    flush();
  }, 60_000);

  // ---------------------------------------------------------------- 6. minimum

  test('a claim below the minimum or with nothing to claim is 409 with its reason and writes nothing', async () => {
    const T1 = tenant.T1.key;
    const nothing = await requestPayout('M1', T1, 1, 'USDC');
    check(nothing.status === 409, `nothing to claim → ${nothing.status}`);
    for (const amount of ['2.000001', '2.5']) await publishValid(makeEvent({ sourceId: 'M1', chainId: 1, asset: 'USDC', amount }));
    for (const amount of ['0.000999999999999999']) await publishValid(makeEvent({ sourceId: 'M1', chainId: 56, asset: 'ETH', amount }));
    await waitIngested('minimum events', 15_000);
    const before = await tableCounts();
    const low = await requestPayout('M1', T1, 1, 'USDC');
    check(low.status === 409 && /minimum/i.test(low.body?.message ?? ''), `4.500001 USDC (min 5) → ${low.status} ${low.text.slice(0, 200)}`);
    const lowEth = await requestPayout('M1', T1, 56, 'ETH');
    check(
      lowEth.status === 409 && /minimum/i.test(lowEth.body?.message ?? ''),
      `0.000999999999999999 ETH (min 0.001) → ${lowEth.status} ${lowEth.text.slice(0, 200)}`,
    );
    check(JSON.stringify(await tableCounts()) === JSON.stringify(before), 'a refused claim wrote rows');
    const cb = await cashback('M1', T1);
    check(cb.balances.get('1/USDC')?.claimable === scaled('4.500001'), `M1 USDC claimable after refusal: ${fmt(cb.balances.get('1/USDC')?.claimable ?? -1n)}`);
    await publishValid(makeEvent({ sourceId: 'M1', chainId: 1, asset: 'USDC', amount: '0.499999' }));
    await publishValid(makeEvent({ sourceId: 'M1', chainId: 56, asset: 'ETH', amount: '0.000000000000000001' }));
    await waitIngested('top-up events', 15_000);
    const ok = await requestPayout('M1', T1, 1, 'USDC');
    check(
      ok.status === 201 && scaled(String(ok.text.match(/"amount"\s*:\s*([0-9.eE+-]+)/)?.[1])) === scaled('5'),
      `exactly the minimum (5 USDC) → ${ok.status} ${ok.text.slice(0, 200)}`,
    );
    const okEth = await requestPayout('M1', T1, 56, 'ETH');
    check(okEth.status === 201 && payouts.get(okEth.body?.id)?.amount === scaled('0.001'), `exactly 0.001 ETH → ${okEth.status} ${okEth.text.slice(0, 200)}`);
    const again = await requestPayout('M1', T1, 1, 'USDC');
    check(again.status === 409, `second claim of M1 USDC → ${again.status}`);
    flush();
  });

  // ---------------------------------------------------------------- 7. races

  test('3 sources × 25 concurrent payout requests, TX_FAILED releases and re-requests while ingesting and a replica is replaced: conservation to the wei', async () => {
    const race = ['R1', 'R2', 'R3'];
    const keyOf = (s: string) => tenant[owner[s]].key;
    // seed: chain 1 ETH (claimed by the races) and other groups (must stay untouched)
    const seed: Ev[] = [];
    for (const s of race) {
      for (let i = 0; i < 20; i++) seed.push(makeEvent({ sourceId: s, chainId: 1, asset: 'ETH' }));
      seed.push(makeEvent({ sourceId: s, chainId: 56, asset: 'ETH' }), makeEvent({ sourceId: s, chainId: 1, asset: 'USDC', amount: '100.000001' }));
    }
    await Promise.all(seed.map(publishValid));
    await waitIngested('race seed', 20_000);

    // background ingestion for the race sources (and duplicates of what it sent)
    let ingesting = true;
    const sent: Ev[] = [];
    const background = (async () => {
      while (ingesting) {
        const ev = makeEvent({ sourceId: pick(race), chainId: pick([1, 1, 1, 137]), asset: 'ETH' });
        sent.push(ev);
        await publishValid(ev);
        if (Math.random() < 0.2) await publish(pick(sent));
        await new Promise((r) => setTimeout(r, 15));
      }
    })();

    const txFailedIds: string[] = [];
    const statusCounts: Record<number, number> = {};
    for (let round = 0; round < 4; round++) {
      const pending = [...payouts.values()].filter((p) => race.includes(p.sourceId) && p.status === 'PENDING');
      const ops: Promise<unknown>[] = [];
      for (const s of race)
        for (let k = 0; k < 25; k++)
          ops.push(requestPayout(s, k % 10 === 9 ? admin : keyOf(s)).then((r) => (statusCounts[r.status] = (statusCounts[r.status] ?? 0) + 1)));
      // operators, at the same time: every earlier PENDING payout goes TX_PENDING; a third then fails (released), a third is PAID, a third stays in flight
      pending.forEach((p, i) => {
        ops.push(
          (async () => {
            const h = randHash();
            const a = await transition(p.id, 'TX_PENDING', h);
            check(a.status === 200, `PENDING → TX_PENDING: ${a.status} ${a.text.slice(0, 150)}`);
            if (i % 3 === 2) return; // stays in flight
            const fail = i % 3 === 0;
            const b = await transition(p.id, fail ? 'TX_FAILED' : 'PAID');
            check(b.status === 200, `TX_PENDING → ${fail ? 'TX_FAILED' : 'PAID'}: ${b.status} ${b.text.slice(0, 150)}`);
            if (fail && b.status === 200) txFailedIds.push(p.id);
          })(),
        );
      });
      await Promise.all(ops);
      if (round === 1) {
        // replace the payout replicas mid-stream (between request bursts; ingestion keeps going)
        await stack.addPayoutReplica();
        await stack.payoutReplicas.shift()!.close();
        await stack.payoutReplicas.shift()!.close();
        await stack.addPayoutReplica();
      }
    }
    // keyset paging while entries keep arriving: no repeats, nothing that existed is skipped
    const snapshot = await listAll(admin);
    const paged = await listAll(admin, '', 20);
    check(new Set(paged.map((e) => e.id)).size === paged.length, 'paging under inserts repeated entries');
    const pagedIds = new Set(paged.map((e) => e.id));
    check(
      snapshot.every((e) => pagedIds.has(e.id)),
      `paging under inserts skipped ${snapshot.filter((e) => !pagedIds.has(e.id)).length} entries`,
    );
    for (let i = 1; i < paged.length; i++)
      check(
        Date.parse(paged[i - 1].createdAt) >= Date.parse(paged[i].createdAt),
        `paging under inserts not newest first at ${i} of ${paged.length} (page size 20): ${paged[i - 1].id} ${paged[i - 1].createdAt} before ${paged[i].id} ${paged[i].createdAt}`,
      );
    const perSourceSuccess = race.map((s) => [...payouts.values()].filter((p) => p.sourceId === s).length);
    check(
      perSourceSuccess.every((n) => n >= 2),
      `each race source should have had several payouts: ${perSourceSuccess}`,
    );
    check(txFailedIds.length > 0, 'no payout was failed and released');

    // a TX_PENDING payout raced by PAID and TX_FAILED: exactly one outcome
    for (const s of race) {
      const r = await requestPayout(s, keyOf(s));
      if (r.status !== 201) continue;
      const id = r.body.id as string;
      await transition(id, 'TX_PENDING', randHash());
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => transition(id, i % 2 ? 'PAID' : 'TX_FAILED')));
      const final = await getPayout(id);
      const winners = results.filter((x) => x.status === 200).map((x) => x.body.status as string);
      check(new Set(winners).size === 1, `PAID vs TX_FAILED race on ${id}: winners ${winners.join(',')}`);
      for (const x of results) if (x.status !== 200) checkError(x, 409, 'Conflict', `losing transition of ${id}`);
      if (final) {
        check(winners.includes(final.status), `race on ${id} ended ${final.status} but winners were ${winners}`);
        payouts.set(id, final);
        if (final.status === 'TX_FAILED') txFailedIds.push(id);
      }
    }

    ingesting = false;
    await background;
    await waitIngested('background ingestion', 40_000);
    await consumerDrained('background ingestion');

    // tenant isolation of payouts
    const someR1 = [...payouts.values()].find((p) => p.sourceId === 'R1');
    if (someR1) {
      checkError(await stack.request('GET', `/v1/cashback/payout/${someR1.id}`, { key: tenant.T2.key }), 404, 'NotFound', "T2 reads T1's payout");
      check((await stack.request('GET', `/v1/cashback/payout/${someR1.id}`, { key: tenant.T1.key })).status === 200, 'T1 cannot read its own payout');
    }

    // conservation per race source on (1, ETH): PAID payouts + in progress + claimable = events
    const all = await listAll(admin);
    for (const s of race) {
      const refreshed = await Promise.all([...payouts.values()].filter((p) => p.sourceId === s).map((p) => getPayout(p.id)));
      const mine = refreshed.filter((p): p is PayoutView => !!p);
      for (const p of mine) {
        check(p.status === payouts.get(p.id)!.status, `payout ${p.id} is ${p.status}, last seen ${payouts.get(p.id)!.status}`);
        payouts.set(p.id, p);
      }
      const events = sum([...expected.values()].filter((e) => e.sourceId === s && e.chainId === 1 && e.asset === 'ETH').map((e) => scaled(e.amount)));
      const paid = sum(mine.filter((p) => p.status === 'PAID').map((p) => p.amount));
      const inFlight = sum(mine.filter((p) => p.status === 'PENDING' || p.status === 'TX_PENDING').map((p) => p.amount));
      const cb = await cashback(s, keyOf(s));
      const b = cb.balances.get('1/ETH');
      const claimable = b?.claimable ?? -1n;
      check(
        paid + inFlight + claimable === events,
        `${s}: paid ${fmt(paid)} + in flight ${fmt(inFlight)} + claimable ${fmt(claimable)} = ${fmt(paid + inFlight + claimable)} ≠ events ${fmt(events)}`,
      );
      check(b?.paid === paid, `${s}: cashback paid ${fmt(b?.paid ?? -1n)} ≠ PAID payouts ${fmt(paid)}`);
      check(b?.pending === inFlight + claimable, `${s}: cashback pending ${fmt(b?.pending ?? -1n)} ≠ in flight + claimable ${fmt(inFlight + claimable)}`);
      const entries = all.filter((e) => e.sourceId === s && e.chainId === 1 && e.asset === 'ETH');
      check(sum(entries.filter((e) => e.status === 'PAID').map((e) => e.amount)) === paid, `${s}: PAID entries ≠ PAID payouts`);
      // the other groups were never claimed
      for (const g of ['56/ETH', '1/USDC', '137/ETH']) {
        const [c, a] = g.split('/');
        const total = sum([...expected.values()].filter((e) => e.sourceId === s && e.chainId === Number(c) && e.asset === a).map((e) => scaled(e.amount)));
        const gb = cb.balances.get(g);
        check((gb?.claimable ?? 0n) === total && (gb?.paid ?? 0n) === 0n, `${s} ${g}: claimable ${fmt(gb?.claimable ?? 0n)} ≠ events ${fmt(total)} (or paid)`);
      }
    }
    check((statusCounts[201] ?? 0) + (statusCounts[409] ?? 0) === 4 * 75, `race request statuses: ${JSON.stringify(statusCounts)}`);
    flush();
  }, 80_000);

  // ---------------------------------------------------------------- 8. transitions

  test('illegal transitions are 409 and change nothing; PAID never goes back', async () => {
    const expectConflict = async (id: string, status: string, txHash?: string) => {
      const before = await getPayout(id);
      const res = await transition(id, status, txHash);
      checkError(res, 409, 'Conflict', `${before?.status} → ${status}`);
      const after = await getPayout(id);
      check(
        JSON.stringify({ ...after, amount: String(after?.amount) }) === JSON.stringify({ ...before, amount: String(before?.amount) }),
        `refused ${before?.status} → ${status} changed the payout to ${after?.status}`,
      );
    };
    // Sources of its own: P1 (T2) and P3 (T1) on chain 1, P2 (T3) on chain 137, ETH.
    for (const [sourceId, chainId] of [
      ['P1', 1],
      ['P1', 1],
      ['P2', 137],
      ['P3', 1],
    ] as const)
      await publishValid(makeEvent({ sourceId, chainId, asset: 'ETH', amount: `${rint(1, 9)}.${digits(18)}` }));
    await waitIngested('the payout sources’ events', 15_000);
    // PENDING → TX_PENDING → PAID, and nothing after PAID
    const T2 = tenant.T2.key;
    const r = await requestPayout('P1', T2, 1, 'ETH');
    check(r.status === 201, `P1 payout: ${r.status} ${r.text.slice(0, 150)}`);
    if (r.status === 201) {
      const id = r.body.id as string;
      await expectConflict(id, 'PAID');
      check((await transition(id, 'TX_PENDING', randHash())).status === 200, 'PENDING → TX_PENDING refused');
      check((await transition(id, 'PAID')).status === 200, 'TX_PENDING → PAID refused');
      await expectConflict(id, 'TX_FAILED');
      await expectConflict(id, 'TX_PENDING', randHash());
      const paid = await listAll(T2, 'sourceId=P1&status=PAID&chainId=1');
      check(paid.length > 0 && paid.every((e) => e.payoutId === id), `P1 PAID entries: ${paid.length}, payoutIds ${[...new Set(paid.map((e) => e.payoutId))]}`);
      check(sum(paid.map((e) => e.amount)) === payouts.get(id)?.amount, 'P1 PAID entries do not add up to the payout');
      const byTx = await getEntries(`/v1/payouts/tx/${paid[0]?.reference}`, T2);
      check(
        byTx.entries.some((e) => e.id === paid[0]?.id && e.status === 'PAID' && e.payoutId === id),
        'GET tx does not show the PAID entry with its payoutId',
      );
      // the same entries cannot be claimed again
      const again = await requestPayout('P1', T2, 1, 'ETH');
      check(again.status === 409, `claim after PAID → ${again.status}`);
    }
    // TX_PENDING → TX_FAILED releases the entries; the failed payout is final
    const r2 = await requestPayout('P2', tenant.T3.key, 137, 'ETH');
    if (r2.status === 201) {
      const id = r2.body.id as string;
      await transition(id, 'TX_PENDING', randHash());
      check((await transition(id, 'TX_FAILED')).status === 200, 'TX_PENDING → TX_FAILED refused');
      await expectConflict(id, 'PAID');
      await expectConflict(id, 'TX_PENDING', randHash());
      const redo = await requestPayout('P2', tenant.T3.key, 137, 'ETH');
      check(
        redo.status === 201 && payouts.get(redo.body?.id)?.amount === payouts.get(id)?.amount,
        `re-claim after TX_FAILED: ${redo.status} ${redo.text.slice(0, 150)}`,
      );
    } else check(false, `P2 payout: ${r2.status}`);
    // a payout without a transaction cannot have failed: PENDING → TX_FAILED is not in the lifecycle
    const r3 = await requestPayout('P3', tenant.T1.key, 1, 'ETH');
    if (r3.status === 201) {
      await expectConflict(r3.body.id as string, 'TX_FAILED');
      const still = await requestPayout('P3', tenant.T1.key, 1, 'ETH');
      check(still.status === 409, `claim while P3's entries are in a PENDING payout → ${still.status}`);
    } else check(false, `P3 payout: ${r3.status}`);
    flush();
  });

  // ---------------------------------------------------------------- 9. audit

  test('final audit: every valid event is exactly one entry, nothing paid twice, every payout adds up', async () => {
    // A payout lifecycle of its own (Z1, T1): one failed and released, then claimed again.
    for (let i = 0; i < 3; i++) await publishValid(makeEvent({ sourceId: 'Z1', chainId: 1, asset: 'ETH', amount: `${rint(1, 9)}.${digits(18)}` }));
    await waitIngested('Z1 events', 15_000);
    const failed = await requestPayout('Z1', tenant.T1.key);
    check(failed.status === 201, `Z1 payout: ${failed.status} ${failed.text.slice(0, 150)}`);
    if (failed.status === 201) {
      await transition(failed.body.id, 'TX_PENDING', randHash());
      check((await transition(failed.body.id, 'TX_FAILED')).status === 200, 'Z1: TX_PENDING → TX_FAILED refused');
      check((await requestPayout('Z1', tenant.T1.key)).status === 201, 'Z1: released entries cannot be claimed again');
    }
    // settle everything still in flight
    for (const p of [...payouts.values()]) {
      if (p.status === 'PENDING') await transition(p.id, 'TX_PENDING', randHash());
      if (payouts.get(p.id)!.status === 'TX_PENDING') {
        const res = await transition(p.id, 'PAID');
        check(res.status === 200, `settling ${p.id}: ${res.status}`);
      }
    }
    // claim and pay what is left on the race sources
    for (const s of ['R1', 'R2', 'R3']) {
      const cb = await cashback(s);
      const claimable = cb.balances.get('1/ETH')?.claimable ?? 0n;
      const res = await requestPayout(s, admin);
      if (claimable >= scaled('0.001')) {
        check(
          res.status === 201 && payouts.get(res.body?.id)?.amount === claimable,
          `final claim of ${s}: ${res.status}, expected ${fmt(claimable)}: ${res.text.slice(0, 150)}`,
        );
        if (res.status === 201) {
          await transition(res.body.id, 'TX_PENDING', randHash());
          await transition(res.body.id, 'PAID');
        }
      } else check(res.status === 409, `final claim of ${s} with ${fmt(claimable)} claimable: ${res.status}`);
    }

    const all = await listAll(admin);
    for (let i = 1; i < all.length; i++)
      check(
        Date.parse(all[i - 1].createdAt) >= Date.parse(all[i].createdAt),
        `final list not newest first at ${i}: ${all[i - 1].id} ${all[i - 1].createdAt} before ${all[i].id} ${all[i].createdAt}`,
      );
    // every valid event id → exactly one entry; nothing else
    const byKey = new Map<string, Entry[]>();
    for (const e of all) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
    for (const ev of expected.values()) check(byKey.get(keyOfEvent(ev))?.length === 1, `event ${ev.id}: ${byKey.get(keyOfEvent(ev))?.length ?? 0} entries`);
    check(all.length === expected.size, `${all.length} entries for ${expected.size} valid events`);
    const rows = await stack.db.query<{ event_id: string; n: number }>(`select event_id::text, count(*)::int n from payout.entries group by 1`);
    check(
      rows.length === expected.size && rows.every((r) => r.n === 1 && expected.has(r.event_id)),
      `database: ${rows.length} event ids for ${expected.size} events`,
    );
    for (const id of invalidIds) check(!rows.some((r) => r.event_id === id), `invalid event ${id} has a row`);

    // every payout adds up; no entry in two payouts; released entries belong to no failed payout
    const fresh = new Map<string, PayoutView>();
    for (const id of payouts.keys()) {
      const p = await getPayout(id);
      if (p) fresh.set(id, p);
    }
    const byPayout = new Map<string, Entry[]>();
    for (const e of all) if (e.payoutId) byPayout.set(e.payoutId, [...(byPayout.get(e.payoutId) ?? []), e]);
    for (const [pid, entries] of byPayout) {
      const p = fresh.get(pid);
      check(!!p, `entries point at payout ${pid}, which this client never created`);
      if (!p) continue;
      check(p.status === 'PAID', `entries are PAID by payout ${pid}, which is ${p.status}`);
      check(
        entries.every((e) => e.sourceId === p.sourceId && e.chainId === p.chainId && e.asset === p.asset),
        `payout ${pid} paid entries of another source/chain/asset`,
      );
    }
    for (const p of fresh.values()) {
      const entries = byPayout.get(p.id) ?? [];
      if (p.status === 'PAID')
        check(
          sum(entries.map((e) => e.amount)) === p.amount,
          `PAID payout ${p.id} of ${p.sourceId}: amount ${fmt(p.amount)}, its entries ${fmt(sum(entries.map((e) => e.amount)))} (${entries.length})`,
        );
      else check(entries.length === 0, `${p.status} payout ${p.id} has ${entries.length} PAID entries`);
      check(p.status === 'PAID' || p.status === 'TX_FAILED', `payout ${p.id} left ${p.status} after settling`);
    }
    // per source and group: PAID payouts + claimable = events, to the wei; cashback agrees
    for (const s of Object.keys(owner)) {
      const cb = await cashback(s);
      const groups = new Set([...expected.values()].filter((e) => e.sourceId === s).map((e) => `${e.chainId}/${e.asset}`));
      for (const g of groups) {
        const [c, a] = g.split('/');
        const events = sum([...expected.values()].filter((e) => e.sourceId === s && e.chainId === Number(c) && e.asset === a).map((e) => scaled(e.amount)));
        const paid = sum(
          [...fresh.values()].filter((p) => p.sourceId === s && p.chainId === Number(c) && p.asset === a && p.status === 'PAID').map((p) => p.amount),
        );
        const b = cb.balances.get(g);
        check(
          !!b && b.paid === paid && b.pending === b.claimable && paid + b.claimable === events,
          `${s} ${g}: paid ${fmt(paid)} (cashback ${fmt(b?.paid ?? -1n)}) + claimable ${fmt(b?.claimable ?? -1n)} ≠ events ${fmt(events)}`,
        );
      }
      if (['R1', 'R2', 'R3'].includes(s))
        check((cb.balances.get('1/ETH')?.pending ?? 0n) === 0n, `${s} 1/ETH still pending ${fmt(cb.balances.get('1/ETH')?.pending ?? 0n)}`);
    }
    // the tenant's view of its own entries agrees with admin's
    for (const t of ['T1', 'T2', 'T3']) {
      const mine = await listAll(tenant[t].key);
      const want = all.filter((e) => owner[e.sourceId] === t);
      check(
        JSON.stringify(mine.map((e) => `${e.id}${e.status}${e.payoutId}`).sort()) === JSON.stringify(want.map((e) => `${e.id}${e.status}${e.payoutId}`).sort()),
        `${t}: own view ≠ admin view`,
      );
    }
    flush();
  }, 60_000);
});
