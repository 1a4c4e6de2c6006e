import {
  INTENT_CANCEL,
  INTENT_CREATE,
  INTENT_EVENTS_STREAM,
  INTENT_GET,
  INTENT_HEALTH,
  INTENT_SEARCH,
  type CreateIntentReply,
  type IntentEvent,
  type IntentRecord,
  type SearchIntentsReply,
} from '@tradeinfra/contracts';
import { eventually, StreamCollector } from '@tradeinfra/test-support';
import { randomUUID } from 'node:crypto';
import { startIntentService, type IntentServiceHarness } from './harness.js';

const WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TOKEN = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

function body(overrides: Record<string, unknown> = {}) {
  return {
    chainId: 1,
    wallet: WALLET.toLowerCase(),
    tokenAddress: TOKEN,
    bribe: '1',
    buyAmount: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
    expiry: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  };
}

describe('intent service over NATS, on Postgres', () => {
  let h: IntentServiceHarness;
  let events: StreamCollector<IntentEvent>;
  const tenantId = randomUUID();

  const create = (b: unknown, opts: { tenant?: string; key?: string } = {}) =>
    h.rpc.request<CreateIntentReply>(INTENT_CREATE, { tenantId: opts.tenant ?? tenantId, idempotencyKey: opts.key ?? null, body: b });
  const errorOf = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: { name: string; message: string; details: unknown }) => ({ name: e.name, message: e.message, details: e.details }),
    );

  beforeAll(async () => {
    h = await startIntentService({ EXPIRY_SWEEP_INTERVAL_MS: '200', OUTBOX_POLL_INTERVAL_MS: '100' });
    events = await StreamCollector.start<IntentEvent>(h.rpc.nc, INTENT_EVENTS_STREAM);
  });
  afterAll(async () => {
    await events?.stop();
    await h?.close();
  });

  it('answers health checks', async () => {
    await expect(h.rpc.request(INTENT_HEALTH, {})).resolves.toEqual({ ok: true });
  });

  it('creates an intent with exact amounts, checksummed addresses and a created event', async () => {
    const { intent, replayed } = await create(body({ maxBuyTax: 0.1, feeBps: 25, feeRecipient: TOKEN.toLowerCase() }));
    expect(replayed).toBe(false);
    expect(intent).toMatchObject({
      status: 'pending',
      wallet: WALLET,
      feeRecipient: TOKEN,
      buyAmount: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      maxBuyTax: 0.1,
      maxSellTax: null,
      feeBps: 25,
      txHash: null,
    });
    expect(intent.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(new Date(intent.createdAt).toISOString()).toBe(intent.createdAt);
    const event = await eventually('created event', () => events.data.find((e) => e.intent.id === intent.id));
    expect(event).toMatchObject({
      type: 'intent_created',
      event: 'created',
      intentId: intent.id,
      chainId: intent.chainId,
      reason: 'created',
      data: {},
      tenantId,
      intent,
    });
    expect(events.messages.find((m) => m.data.id === event.id)).toMatchObject({ subject: 'intent.events.created', msgId: event.id });
  });

  it('rejects invalid bodies and chains it is not configured for, writing nothing', async () => {
    const before = await h.db.query('SELECT count(*)::int AS n FROM intent.intents');
    await expect(errorOf(create(body({ chainId: 10 })))).resolves.toMatchObject({
      name: 'ValidationError',
      details: [{ path: 'chainId', message: 'must be one of the supported chains: 1, 56, 137' }],
    });
    await expect(errorOf(create({ wallet: 'x' }))).resolves.toMatchObject({ name: 'ValidationError' });
    expect(await h.db.query('SELECT count(*)::int AS n FROM intent.intents')).toEqual(before);
  });

  it('makes one intent of 50 concurrent creates with one Idempotency-Key', async () => {
    const key = randomUUID();
    // One body for all 50 (its expiry is read from the clock: bodies made across a second boundary would differ).
    const same = body({ bribe: '7' });
    const replies = await Promise.all(Array.from({ length: 50 }, () => create(same, { key })));
    const ids = new Set(replies.map((r) => r.intent.id));
    expect(ids.size).toBe(1);
    expect(replies.filter((r) => !r.replayed)).toHaveLength(1);
    const rows = await h.db.query('SELECT count(*)::int AS n FROM intent.intents WHERE id = $1', [[...ids][0]]);
    expect(rows[0]!.n).toBe(1);
    // Same key, other body → conflict; same key, other tenant → independent.
    await expect(errorOf(create(body({ bribe: '8' }), { key }))).resolves.toMatchObject({ name: 'Conflict' });
    const other = await create(body({ bribe: '8' }), { key, tenant: randomUUID() });
    expect(other.replayed).toBe(false);
  });

  it('treats a key older than the TTL as new', async () => {
    const key = randomUUID();
    const first = await create(body(), { key });
    await h.db.query(`UPDATE intent.idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [key]);
    const second = await create(body(), { key });
    expect(second.replayed).toBe(false);
    expect(second.intent.id).not.toBe(first.intent.id);
  });

  it('scopes fetch to the tenant', async () => {
    const { intent } = await create(body());
    await expect(h.rpc.request<IntentRecord>(INTENT_GET, { tenantId, id: intent.id.toUpperCase() })).resolves.toEqual(intent);
    await expect(errorOf(h.rpc.request(INTENT_GET, { tenantId: randomUUID(), id: intent.id }))).resolves.toMatchObject({ name: 'NotFound' });
    await expect(errorOf(h.rpc.request(INTENT_GET, { tenantId, id: 'nope' }))).resolves.toMatchObject({ name: 'ValidationError' });
  });

  it('pages newest first, stable while intents are inserted', async () => {
    const tenant = randomUUID();
    const wallet = '0x' + 'ab'.repeat(20);
    const created: string[] = [];
    for (let i = 0; i < 25; i++) created.push((await create(body({ wallet }), { tenant })).intent.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: SearchIntentsReply = await h.rpc.request<SearchIntentsReply>(INTENT_SEARCH, {
        tenantId: tenant,
        body: { addresses: [wallet.toUpperCase().replace('0X', '0x')], limit: 10, cursor },
      });
      seen.push(...(JSON.parse(page.intentsJson) as IntentRecord[]).map((i) => i.id));
      // Inserted between pages: newer than every page already read, so never shows up later.
      await create(body({ wallet }), { tenant });
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...created].reverse());
  });

  it('lists every wallet of the tenant, by status and in pages, only when the message is tenant-wide', async () => {
    const tenant = randomUUID();
    const wallets = ['0x' + 'cd'.repeat(20), '0x' + 'ef'.repeat(20)];
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await create(body({ wallet: wallets[i % 2] }), { tenant })).intent.id);
    await create(body(), { tenant: randomUUID() }); // another tenant's: never listed
    await h.rpc.request(INTENT_CANCEL, { tenantId: tenant, id: created[2] });
    const search = (b: object, tenantWide = true) => h.rpc.request<SearchIntentsReply>(INTENT_SEARCH, { tenantId: tenant, body: b, tenantWide });
    const ids = (page: SearchIntentsReply) => (JSON.parse(page.intentsJson) as IntentRecord[]).map((i) => i.id);
    const all = ['pending', 'cancelled'];
    const first = await search({ status: all, limit: 4 });
    const second = await search({ status: all, limit: 4, cursor: first.nextCursor });
    expect([...ids(first), ...ids(second)]).toEqual([...created].reverse());
    expect(second.nextCursor).toBeNull();
    expect(ids(await search({ status: ['cancelled'] }))).toEqual([created[2]]);
    expect(ids(await search({ addresses: [wallets[1]], status: all }))).toEqual([created[5], created[3], created[1]]);
    // Without tenantWide (API keys), addresses stay required.
    await expect(errorOf(search({ status: all }, false))).resolves.toMatchObject({
      name: 'ValidationError',
      details: [{ path: 'addresses', message: 'is required' }],
    });
  });

  it('lets exactly one of 20 concurrent cancels win', async () => {
    const { intent } = await create(body());
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => h.rpc.request<IntentRecord>(INTENT_CANCEL, { tenantId, id: intent.id })));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect((won[0] as PromiseFulfilledResult<IntentRecord>).value.status).toBe('cancelled');
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ name: 'Conflict', details: { status: 'cancelled' } });
    }
    await eventually('cancelled event', () => events.data.some((e) => e.intent.id === intent.id && e.event === 'cancelled'));
    expect(events.data.filter((e) => e.intent.id === intent.id).map((e) => e.event)).toEqual(['created', 'cancelled']);
  });

  it('expires a pending intent once, even with three replicas sweeping', async () => {
    await h.addReplica();
    await h.addReplica();
    const { intent } = await create(body({ expiry: Math.floor(Date.now() / 1000) + 1 }));
    const expired = await eventually(
      'expiry',
      async () => {
        const got = await h.rpc.request<IntentRecord>(INTENT_GET, { tenantId, id: intent.id });
        return got.status === 'expired' ? got : undefined;
      },
      6_000,
    );
    expect(new Date(expired.updatedAt).getTime() - intent.expiry * 1000).toBeLessThan(5_000);
    await eventually('expired event', () => events.data.some((e) => e.intent.id === intent.id && e.event === 'expired'));
    const rows = await h.db.query(`SELECT type FROM intent.outbox WHERE intent->>'id' = $1 ORDER BY seq`, [intent.id]);
    expect(rows.map((r) => r.type)).toEqual(['created', 'expired']);
    await expect(errorOf(h.rpc.request(INTENT_CANCEL, { tenantId, id: intent.id }))).resolves.toMatchObject({ name: 'Conflict' });
  });

  describe('an intent whose buy was submitted', () => {
    const submit = (id: string, expiresAgo: string) =>
      h.db.query(
        `UPDATE intent.intents SET phase = 'submitted', tx_hash = $2, signed_tx = '0x02', tx_nonce = 0, target_block = 1, submitted_at = now(),
           expires_at = now() - $3::interval WHERE id = $1`,
        [id, `0x${'ab'.repeat(32)}`, expiresAgo],
      );

    it('cannot be cancelled: 409 saying it is executing', async () => {
      const { intent } = await create(body());
      await submit(intent.id, '-1 hour'); // expires in an hour
      const err = await errorOf(h.rpc.request(INTENT_CANCEL, { tenantId, id: intent.id }));
      expect(err).toMatchObject({ name: 'Conflict', details: { status: 'pending', executing: true } });
      expect(err.message).toContain('executing');
    });

    it('is not expired by the sweeper: the chain decides; unfollowable long past expiry, it ends in error', async () => {
      const { intent: waiting } = await create(body());
      const { intent: lost } = await create(body());
      await submit(waiting.id, '1 minute');
      await submit(lost.id, '11 minutes');
      const event = await eventually('error event', () => events.data.find((e) => e.intent.id === lost.id && e.event === 'error'));
      expect(event.intent).toMatchObject({ status: 'error', statusReason: 'outcome_unknown', txHash: `0x${'ab'.repeat(32)}` });
      expect(event).toMatchObject({ type: 'intent_error', reason: 'outcome_unknown', intentId: lost.id });
      const [row] = await h.db.query<{ status: string }>('SELECT status FROM intent.intents WHERE id = $1', [waiting.id]);
      expect(row!.status).toBe('pending');
    });
  });
});
