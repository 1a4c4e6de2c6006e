import {
  INTENT_CANCEL_BATCH,
  INTENT_CREATE,
  INTENT_CREATE_BATCH,
  type CancelIntentsReply,
  type CreateIntentReply,
  type CreateIntentsReply,
} from '@tradeinfra/contracts';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../database/data-source.js';
import { IntentsRepository } from '../intents/intents.repository.js';
import { startIntentService, type IntentServiceHarness } from './harness.js';

const WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TOKEN = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

function body(overrides: Record<string, unknown> = {}) {
  return {
    chainId: 1,
    wallet: WALLET.toLowerCase(),
    tokenAddress: TOKEN,
    bribe: '1',
    buyAmount: '1000000000000000000',
    expiry: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  };
}

function shuffled<T>(values: T[]): T[] {
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('intent service: batch create and bulk cancel, on Postgres', () => {
  let h: IntentServiceHarness;
  let ds: DataSource;
  const tenantId = randomUUID();

  const createBatch = (b: unknown, opts: { tenant?: string; key?: string } = {}) =>
    h.rpc.request<CreateIntentsReply>(INTENT_CREATE_BATCH, { tenantId: opts.tenant ?? tenantId, idempotencyKey: opts.key ?? null, body: b });
  const cancelBatch = (ids: string[], tenant = tenantId) => h.rpc.request<CancelIntentsReply>(INTENT_CANCEL_BATCH, { tenantId: tenant, body: { ids } });
  const errorOf = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: { name: string; message: string; details: unknown }) => ({ name: e.name, message: e.message, details: e.details }),
    );
  const outboxTypes = async (id: string) =>
    (await h.db.query<{ type: string }>(`SELECT type FROM intent.outbox WHERE intent->>'id' = $1 ORDER BY seq`, [id])).map((r) => r.type);
  const countOf = async (tenant: string) =>
    Number((await h.db.query<{ n: string }>('SELECT count(*) AS n FROM intent.intents WHERE tenant_id = $1', [tenant]))[0]!.n);

  beforeAll(async () => {
    h = await startIntentService({ CHAIN_IDS: '1,56', OUTBOX_POLL_INTERVAL_MS: '100' });
    ds = await createDataSource({ ...h.env, INTENT_DB_POOL_SIZE: 6 }).initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
    await h?.close();
  });

  it('creates a batch in request order, each intent as a single create makes it, with one created event each', async () => {
    const items = [body({ buyAmount: '3' }), body({ buyAmount: '1', chainId: 56 }), body({ buyAmount: '2', maxBuyTax: 0.05 })];
    const { intents, replayed } = await createBatch(items);
    expect(replayed).toBe(false);
    expect(intents.map((i) => [i.buyAmount, i.chainId, i.status, i.wallet])).toEqual([
      ['3', 1, 'pending', WALLET],
      ['1', 56, 'pending', WALLET],
      ['2', 1, 'pending', WALLET],
    ]);
    expect(intents[2]!.maxBuyTax).toBe(0.05);
    // The same fields as a single create of the same body (bar id and times).
    const single = (await h.rpc.request<CreateIntentReply>(INTENT_CREATE, { tenantId, idempotencyKey: null, body: items[2] })).intent;
    const strip = ({ id: _i, createdAt: _c, createdAtMs: _m, updatedAt: _u, ...rest }: Record<string, unknown>) => rest;
    expect(strip(intents[2]! as never)).toEqual(strip(single as never));
    for (const intent of intents) {
      expect(await outboxTypes(intent.id)).toEqual(['created']);
      const [row] = await h.db.query<{ intent: unknown }>(`SELECT intent FROM intent.outbox WHERE intent->>'id' = $1`, [intent.id]);
      expect(row!.intent).toEqual(intent);
    }
  });

  it('stores nothing when one item is invalid, naming it by index', async () => {
    const tenant = randomUUID();
    const err = await errorOf(createBatch([body(), body(), body({ chainId: 137 }), body({ buyAmount: '-1' })], { tenant }));
    expect(err).toMatchObject({ name: 'ValidationError' });
    expect(err.details).toEqual([
      { path: '2.chainId', message: 'must be one of the supported chains: 1, 56' },
      { path: '3.buyAmount', message: 'must be wei as a decimal integer string (digits only, no sign, no leading zeros)' },
    ]);
    expect(await countOf(tenant)).toBe(0);
  });

  it('replays a batch for the same Idempotency-Key and body, once under 20 concurrent requests, and refuses another body', async () => {
    const tenant = randomUUID();
    const key = randomUUID();
    const items = Array.from({ length: 10 }, (_, i) => body({ buyAmount: String(i + 1) }));
    const replies = await Promise.all(Array.from({ length: 20 }, () => createBatch(items, { tenant, key })));
    const first = replies.find((r) => !r.replayed)!;
    expect(replies.filter((r) => !r.replayed)).toHaveLength(1);
    for (const r of replies) expect(r.intents).toEqual(first.intents);
    expect(await countOf(tenant)).toBe(10);

    const other = await errorOf(createBatch([...items].reverse(), { tenant, key }));
    expect(other).toMatchObject({ name: 'Conflict', details: { path: 'headers.idempotency-key' } });
    // The key of a batch is not the key of its first intent created alone, nor the other way round.
    const single = await errorOf(h.rpc.request(INTENT_CREATE, { tenantId: tenant, idempotencyKey: key, body: items[0] }));
    expect(single).toMatchObject({ name: 'Conflict' });
    const singleKey = randomUUID();
    await h.rpc.request(INTENT_CREATE, { tenantId: tenant, idempotencyKey: singleKey, body: items[0] });
    expect(await errorOf(createBatch([items[0]], { tenant, key: singleKey }))).toMatchObject({ name: 'Conflict' });
    expect(await countOf(tenant)).toBe(11);
  });

  it('cancels pending intents and answers every id in order: not_found, not_pending, executing', async () => {
    const { intents } = await createBatch([body(), body(), body(), body()]);
    const [pending, done, executing, claimed] = intents.map((i) => i.id) as [string, string, string, string];
    await cancelBatch([done]);
    await h.db.query(
      `UPDATE intent.intents SET phase = 'submitted', tx_hash = $2, signed_tx = '0x02', tx_nonce = 0, target_block = 1, submitted_at = now() WHERE id = $1`,
      [executing, `0x${'ab'.repeat(32)}`],
    );
    // Claimed by the executor but not yet submitted: still cancellable, as with a single cancel.
    await h.db.query(`UPDATE intent.intents SET phase = 'claimed', claim_token = $2, claimed_at = now() WHERE id = $1`, [claimed, randomUUID()]);
    const theirs = (await createBatch([body()], { tenant: randomUUID() })).intents[0]!.id;
    const unknown = randomUUID();

    const { results } = await cancelBatch([unknown, executing, pending.toUpperCase(), theirs, done, claimed]);
    expect(results).toEqual([
      { id: unknown, status: null, cancelled: false, reason: 'not_found' },
      { id: executing, status: 'pending', cancelled: false, reason: 'executing' },
      { id: pending, status: 'cancelled', cancelled: true, reason: null },
      { id: theirs, status: null, cancelled: false, reason: 'not_found' },
      { id: done, status: 'cancelled', cancelled: false, reason: 'not_pending' },
      { id: claimed, status: 'cancelled', cancelled: true, reason: null },
    ]);
    expect(await outboxTypes(pending)).toEqual(['created', 'cancelled']);
    expect(await outboxTypes(claimed)).toEqual(['created', 'cancelled']);
    expect(await outboxTypes(done)).toEqual(['created', 'cancelled']);
    expect(await outboxTypes(executing)).toEqual(['created']);
    expect(await outboxTypes(theirs)).toEqual(['created']);
    const [row] = await h.db.query<{ status: string; status_reason: string }>('SELECT status, status_reason FROM intent.intents WHERE id = $1', [pending]);
    expect(row).toEqual({ status: 'cancelled', status_reason: 'cancelled by the client' });
  });

  it('refuses repeated ids and more than 500, changing nothing', async () => {
    const { intents } = await createBatch([body()]);
    const id = intents[0]!.id;
    expect(await errorOf(cancelBatch([id, id.toUpperCase()]))).toMatchObject({
      name: 'ValidationError',
      details: [{ path: 'ids.1', message: 'repeats ids.0: name each intent once' }],
    });
    expect(await errorOf(cancelBatch(Array.from({ length: 501 }, () => randomUUID())))).toMatchObject({ name: 'ValidationError' });
    expect(await outboxTypes(id)).toEqual(['created']);
  });

  it('cancels each intent exactly once under concurrent, overlapping bulk cancels in any order', async () => {
    const { intents } = await createBatch(Array.from({ length: 60 }, () => body()));
    const ids = intents.map((i) => i.id);
    const replies = await Promise.all(Array.from({ length: 8 }, () => cancelBatch(shuffled(ids).slice(0, 45))));
    const wins = new Map<string, number>();
    for (const r of replies.flatMap((x) => x.results)) {
      if (r.cancelled) wins.set(r.id, (wins.get(r.id) ?? 0) + 1);
      else expect(r).toMatchObject({ status: 'cancelled', reason: 'not_pending' });
    }
    for (const [, n] of wins) expect(n).toBe(1);
    const events = await h.db.query<{ id: string; n: string }>(
      `SELECT intent->>'id' AS id, count(*) AS n FROM intent.outbox WHERE type = 'cancelled' AND intent->>'id' = ANY($1) GROUP BY 1`,
      [ids],
    );
    expect(events).toHaveLength(wins.size);
    for (const e of events) expect(Number(e.n)).toBe(1);
  });

  it('races the executor settling a claimed round without deadlock: each intent ends once, by one of them', async () => {
    const repo = new IntentsRepository(ds);
    for (let round = 0; round < 5; round++) {
      const token = `0x${randomUUID().replace(/-/g, '').slice(0, 40).padEnd(40, '0')}`;
      const { intents } = await createBatch(Array.from({ length: 30 }, (_, i) => body({ tokenAddress: token, bribe: String(i + 1) })));
      const ids = intents.map((i) => i.id);
      const claimToken = randomUUID();
      const claimed = await repo.claim(1, token, claimToken, 100);
      expect(claimed).toHaveLength(30);
      // The executor fails two thirds (in an order of its own) and hands the rest back, while a
      // client cancels all of them (in another order).
      const order = shuffled(ids);
      const failures = order.slice(0, 20).map((id) => ({ id, reason: 'min_liquidity' }));
      const [settled, cancelled] = await Promise.all([
        repo.settleRound(claimToken, failures, [], order.slice(20), 1n, { type: 'block', txHash: null }),
        cancelBatch(shuffled(ids)),
      ]);
      const byCancel = new Set(cancelled.results.filter((r) => r.cancelled).map((r) => r.id));
      expect(settled.failed + byCancel.size).toBeGreaterThanOrEqual(20);
      const rows = await h.db.query<{ id: string; status: string; types: string[] }>(
        `SELECT x.id, x.status, array(SELECT o.type FROM intent.outbox o WHERE o.intent->>'id' = x.id::text ORDER BY o.seq) AS types
         FROM intent.intents x WHERE x.id = ANY($1)`,
        [ids],
      );
      for (const row of rows) {
        expect(row.types).toEqual(['created', row.status]);
        expect(row.status).toBe(byCancel.has(row.id) ? 'cancelled' : 'failed');
      }
      for (const r of cancelled.results.filter((x) => !x.cancelled)) expect(r).toMatchObject({ status: 'failed', reason: 'not_pending' });
    }
  });
});
