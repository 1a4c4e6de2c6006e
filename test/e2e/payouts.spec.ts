import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { MEV_CAPTURE_DLQ_STREAM, mevCaptureSubject } from '@tradeinfra/contracts';
import { eventually, StreamCollector } from '@tradeinfra/test-support';
import { randomBytes, randomUUID } from 'node:crypto';
import { Stack } from './harness.js';

const hash = () => `0x${randomBytes(32).toString('hex')}`;
const WEI = 10n ** 18n;
/** Decimal string → wei-like integer (18 decimals), for exact sums. */
const scaled = (amount: string | number) => {
  const [int, frac = ''] = String(amount).split('.');
  return BigInt(int!) * WEI + BigInt(frac.padEnd(18, '0'));
};

describe('payouts end to end', () => {
  let stack: Stack;
  let nc: NatsConnection;
  let admin: string;
  let tenantKey: string;
  let otherKey: string;
  let tenantName: string;
  const source = `src-${randomBytes(4).toString('hex')}`;

  function event(overrides: Record<string, unknown> = {}) {
    return {
      id: randomUUID(),
      chainId: 1,
      txHash: hash(),
      sourceId: source,
      asset: 'ETH',
      amount: '0.5',
      type: 'mev',
      time: new Date().toISOString(),
      ...overrides,
    };
  }
  async function publish(...events: object[]) {
    const js = jetstream(nc);
    for (const e of events) await js.publish(mevCaptureSubject((e as { chainId?: number }).chainId ?? 1), JSON.stringify(e));
  }
  const entryCount = async (where = 'true', params: unknown[] = []) =>
    Number((await stack.db.query(`SELECT count(*)::int AS n FROM payout.entries WHERE ${where}`, params))[0]!.n);

  beforeAll(async () => {
    stack = await Stack.start();
    nc = await connect({ servers: stack.nats.url });
    admin = await stack.createKey({ scopes: ['admin'] });
    tenantName = `tenant-${randomUUID()}`;
    tenantKey = await stack.createKey({ tenant: tenantName });
    otherKey = await stack.createKey();
    const reg = await stack.request('POST', '/v1/sources', { key: admin, body: { id: source, tenant: tenantName } });
    expect(reg.status).toBe(201);
  });
  afterAll(async () => {
    await nc?.close();
    await stack?.close();
  });

  it('turns a published event into one entry, however often it is delivered', async () => {
    const e = event({ amount: '0.123456789012345678', generatedBySourceId: 'wallet-x' });
    await publish(e, e, e);
    const res = await eventually('entry visible', async () => {
      const r = await stack.request('GET', `/v1/payouts/tx/${e.txHash.toUpperCase().replace('0X', '0x')}`, { key: tenantKey });
      return r.body.length === 1 ? r : undefined;
    });
    expect(res.text).toMatch(/"amount" ?: ?0\.123456789012345678[,}]/);
    expect(res.body[0]).toMatchObject({
      asset: 'ETH',
      sourceId: source,
      chainId: 1,
      type: 'mev',
      reference: e.txHash,
      generatedBySourceId: 'wallet-x',
      payoutId: '',
      status: 'PENDING',
    });
    expect(await entryCount('reference = $1', [e.txHash])).toBe(1);
    // Another tenant sees nothing of it; an operator does.
    expect((await stack.request('GET', `/v1/payouts/tx/${e.txHash}`, { key: otherKey })).body).toEqual([]);
    expect((await stack.request('GET', `/v1/payouts/tx/${e.txHash}`, { key: admin })).body).toHaveLength(1);
  });

  it('dead-letters invalid events with their reason and keeps consuming', async () => {
    const dlq = await StreamCollector.start<{ reason: string; data: string }>(nc, MEV_CAPTURE_DLQ_STREAM);
    const bad = [event({ amount: '-1' }), event({ asset: 'DOGE' }), event({ amount: '1.1234567', asset: 'USDC' }), event({ chainId: 10 })];
    const good = event();
    await publish(...bad);
    nc.publish(mevCaptureSubject(1), 'not json');
    await publish(good);
    await eventually('good event applied', async () => (await entryCount('event_id = $1', [good.id])) === 1);
    await eventually('five dead letters', () => dlq.messages.length >= 5);
    const reasons = dlq.data.map((d) => d.reason);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringContaining('amount'),
        expect.stringContaining('asset: must be one of the supported assets'),
        expect.stringContaining('has more than 6 decimals'),
        expect.stringContaining('chainId'),
        expect.stringContaining('not JSON'),
      ]),
    );
    await dlq.stop();
    for (const b of bad) expect(await entryCount('event_id = $1', [b.id])).toBe(0);
  });

  it('lets exactly one of 20 concurrent payout requests claim the entries, to the wei', async () => {
    const src = `claim-${randomBytes(4).toString('hex')}`;
    expect((await stack.request('POST', '/v1/sources', { key: admin, body: { id: src, tenant: tenantName } })).status).toBe(201);
    const amounts = Array.from({ length: 30 }, (_, i) => `0.${String(i + 1).padStart(3, '0')}000000000000001`);
    const events = amounts.map((amount) => event({ sourceId: src, amount }));
    await publish(...events);
    await eventually('30 entries', async () => (await entryCount('source_id = $1', [src])) === 30);
    const body = { address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', chainId: 1, asset: 'ETH' };
    const results = await Promise.all(Array.from({ length: 20 }, () => stack.request('POST', `/v1/cashback/source/${src}/payout`, { key: tenantKey, body })));
    const won = results.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
    const payout = won[0]!.body;
    expect(payout).toMatchObject({
      sourceId: src,
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      chainId: 1,
      asset: 'ETH',
      status: 'PENDING',
      txHash: null,
    });
    const total = amounts.reduce((sum, a) => sum + scaled(a), 0n);
    const text = won[0]!.text;
    expect(scaled(/"amount" ?: ?([0-9.]+)/.exec(text)![1]!)).toBe(total);
    expect(await entryCount('claimed_by = $1', [payout.id])).toBe(30);

    // Settle: TX_PENDING needs a hash; PAID marks the entries; PAID is final.
    const url = `/v1/cashback/payout/${payout.id}/status`;
    expect((await stack.request('POST', url, { key: admin, body: { status: 'TX_PENDING' } })).status).toBe(400);
    expect((await stack.request('POST', url, { key: tenantKey, body: { status: 'PAID' } })).status).toBe(403);
    expect((await stack.request('POST', url, { key: admin, body: { status: 'PAID' } })).status).toBe(409);
    const txHash = hash();
    expect((await stack.request('POST', url, { key: admin, body: { status: 'TX_PENDING', txHash } })).body).toMatchObject({ status: 'TX_PENDING', txHash });
    expect((await stack.request('POST', url, { key: admin, body: { status: 'PAID' } })).body.status).toBe('PAID');
    expect((await stack.request('POST', url, { key: admin, body: { status: 'TX_FAILED' } })).status).toBe(409);
    const paid = await stack.request('GET', `/v1/payouts/tx/${events[0]!.txHash}`, { key: tenantKey });
    expect(paid.body[0]).toMatchObject({ status: 'PAID', payoutId: payout.id });
    expect(await entryCount("source_id = $1 AND status = 'PAID' AND payout_id = $2", [src, payout.id])).toBe(30);
    const cashback = await stack.request('GET', `/v1/cashback/source/${src}`, { key: tenantKey });
    expect(cashback.body).toMatchObject({ sourceId: src, entryCount: 30, balances: [{ chainId: 1, asset: 'ETH', pending: 0, claimable: 0 }] });
    expect(scaled(/"paid" ?: ?([0-9.]+)/.exec(cashback.text)![1]!)).toBe(total);
    // Nothing left to claim.
    expect((await stack.request('POST', `/v1/cashback/source/${src}/payout`, { key: tenantKey, body })).status).toBe(409);
  });

  it('releases a failed payout’s entries so they can be claimed again', async () => {
    const src = `fail-${randomBytes(4).toString('hex')}`;
    await stack.request('POST', '/v1/sources', { key: admin, body: { id: src, tenant: tenantName } });
    await publish(event({ sourceId: src, amount: '1' }), event({ sourceId: src, amount: '2' }));
    await eventually('2 entries', async () => (await entryCount('source_id = $1', [src])) === 2);
    const body = { address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', chainId: 1, asset: 'ETH' };
    const first = await stack.request('POST', `/v1/cashback/source/${src}/payout`, { key: tenantKey, body });
    expect(first.status).toBe(201);
    const status = `/v1/cashback/payout/${first.body.id}/status`;
    // A payout without a transaction cannot have failed.
    expect((await stack.request('POST', status, { key: admin, body: { status: 'TX_FAILED' } })).status).toBe(409);
    await stack.request('POST', status, { key: admin, body: { status: 'TX_PENDING', txHash: hash() } });
    const failed = await stack.request('POST', status, { key: admin, body: { status: 'TX_FAILED' } });
    expect(failed.body.status).toBe('TX_FAILED');
    const again = await stack.request('POST', `/v1/cashback/source/${src}/payout`, { key: tenantKey, body });
    expect(again.status).toBe(201);
    expect(again.body.amount).toBe(3);
    expect((await stack.request('GET', `/v1/cashback/payout/${first.body.id}`, { key: tenantKey })).body.status).toBe('TX_FAILED');
    expect((await stack.request('GET', `/v1/cashback/payout/${again.body.id}`, { key: otherKey })).status).toBe(404);
    expect((await stack.request('GET', `/v1/cashback/source/${src}`, { key: otherKey })).status).toBe(404);
  });

  it('audits an operator paying another tenant’s cashback to an address of its choosing', async () => {
    const src = `audit-${randomBytes(4).toString('hex')}`;
    await stack.request('POST', '/v1/sources', { key: admin, body: { id: src, tenant: tenantName } });
    await publish(event({ sourceId: src, amount: '0.7' }), event({ sourceId: src, amount: '0.000000000000000003' }));
    await eventually('2 entries', async () => (await entryCount('source_id = $1', [src])) === 2);
    const elsewhere = '0x000000000000000000000000000000000000dEaD';
    const paid = await stack.request('POST', `/v1/cashback/source/${src}/payout`, { key: admin, body: { address: elsewhere, chainId: 1, asset: 'ETH' } });
    expect(paid.status).toBe(201);
    const [adminKey] = await stack.db.query<{ id: string; tenant_id: string }>('SELECT id, tenant_id FROM gateway.api_keys WHERE prefix = $1', [
      admin.slice(0, 10),
    ]);
    const [owner] = await stack.db.query<{ id: string }>('SELECT id FROM gateway.tenants WHERE name = $1', [tenantName]);
    const audit = await stack.db.query('SELECT * FROM payout.admin_audit WHERE source_id = $1', [src]);
    expect(audit).toEqual([
      expect.objectContaining({
        key_id: adminKey!.id,
        tenant_id: adminKey!.tenant_id,
        action: 'payout.request',
        source_tenant_id: owner!.id,
        payout_id: paid.body.id,
        address: elsewhere,
        chain_id: 1,
        asset: 'ETH',
        amount: '0.700000000000000003',
      }),
    ]);
    // The tenant's own claim is not an operator's action: nothing audited.
    await publish(event({ sourceId: src, amount: '1' }));
    await eventually('3 entries', async () => (await entryCount('source_id = $1', [src])) === 3);
    const own = await stack.request('POST', `/v1/cashback/source/${src}/payout`, { key: tenantKey, body: { address: elsewhere, chainId: 1, asset: 'ETH' } });
    expect(own.status).toBe(201);
    expect(await stack.db.query('SELECT payout_id FROM payout.admin_audit WHERE source_id = $1', [src])).toEqual([{ payout_id: paid.body.id }]);
  });

  it('applies every event exactly once when the service dies mid-stream', async () => {
    const src = `crash-${randomBytes(4).toString('hex')}`;
    const events = Array.from({ length: 3000 }, () => event({ sourceId: src, amount: '0.001' }));
    const publishing = publish(...events);
    await eventually('ingestion under way', async () => (await entryCount('source_id = $1', [src])) > 0, 20_000, 5);
    await stack.payoutReplicas.shift()!.close();
    await publishing;
    await stack.addPayoutReplica();
    await eventually('all 3000 applied', async () => (await entryCount('source_id = $1', [src])) === 3000, 30_000);
    const dupes = await stack.db.query(`SELECT event_id FROM payout.entries WHERE source_id = $1 GROUP BY event_id HAVING count(*) > 1`, [src]);
    expect(dupes).toEqual([]);
  });

  it('pages entries newest first while events keep arriving', async () => {
    const src = `page-${randomBytes(4).toString('hex')}`;
    await stack.request('POST', '/v1/sources', { key: admin, body: { id: src, tenant: tenantName } });
    await publish(...Array.from({ length: 25 }, () => event({ sourceId: src })));
    await eventually('25 entries', async () => (await entryCount('source_id = $1', [src])) === 25);
    const before = (await stack.db.query(`SELECT id FROM payout.entries WHERE source_id = $1 ORDER BY id DESC`, [src])).map((r) => r.id as string);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `sourceId=${src}&limit=7${cursor ? `&cursor=${cursor}` : ''}`;
      const [page] = await Promise.all([stack.request('GET', `/v1/payouts?${q}`, { key: tenantKey }), publish(event({ sourceId: src }))]);
      expect(page.status).toBe(200);
      seen.push(...page.body.map((e: { id: string }) => e.id));
      cursor = page.headers.get('x-next-cursor');
    } while (cursor);
    expect(seen.filter((id) => before.includes(id))).toEqual(before);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('lets operators record entries idempotently, and nobody else', async () => {
    const e = event();
    const first = await stack.request('POST', '/v1/payouts/entries', { key: admin, body: e });
    expect(first.status).toBe(201);
    const again = await stack.request('POST', '/v1/payouts/entries', { key: admin, body: e });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect((await stack.request('POST', '/v1/payouts/entries', { key: tenantKey, body: event() })).status).toBe(403);
    const bad = await stack.request('POST', '/v1/payouts/entries', { key: admin, body: { ...event(), amount: '1.5e3' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('amount');
  });

  it.each([
    ['/v1/payouts/tx/0x1234', 'hash'],
    ['/v1/payouts?status=LOST', 'status'],
    ['/v1/payouts?chainId=abc', 'chainId'],
    ['/v1/payouts?limit=501', 'limit'],
    ['/v1/payouts?from=yesterday', 'from'],
    ['/v1/payouts?cursor=nope', 'cursor'],
    ['/v1/payouts?colour=red', 'colour'],
    ['/v1/cashback/payout/not-a-uuid', 'id'],
    ['/v1/cashback/source/bad%20id', 'id'],
  ])('GET %s is a 400 naming %s', async (path, field) => {
    const res = await stack.request('GET', path, { key: tenantKey });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  it('refuses bad payout requests and writes nothing', async () => {
    const url = `/v1/cashback/source/${source}/payout`;
    for (const [body, field] of [
      [{ address: '0x12', chainId: 1, asset: 'ETH' }, 'address'],
      [{ address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', chainId: 10, asset: 'ETH' }, 'chainId'],
      [{ address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', chainId: 1, asset: 'DOGE' }, 'asset'],
    ] as const) {
      const res = await stack.request('POST', url, { key: tenantKey, body });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    expect(Number((await stack.db.query('SELECT count(*)::int AS n FROM payout.payouts WHERE source_id = $1', [source]))[0]!.n)).toBe(0);
  });
});
