import { TestDatabase } from '@tradeinfra/test-support';
import type { DataSource } from 'typeorm';
import { uuidv7 } from 'uuidv7';
import { BundlesRepository, type Bid } from '../auction/bundles.repository.js';
import { SubmissionsRepository } from '../auction/submissions.repository.js';
import { loadEnv } from '../config/env.js';
import { createDataSource, runMigrations } from '../database/data-source.js';

/** Replicas deciding one round at once: the first decision written is the one every replica submits. */
describe('auction decisions across replicas (real Postgres)', () => {
  let db: TestDatabase;
  const sources: DataSource[] = [];

  beforeAll(async () => {
    db = await TestDatabase.create('orderflow_decisions');
    const env = loadEnv({ ...process.env, ...db.env, ORDERFLOW_CHAIN_IDS: '', ORDERFLOW_DB_POOL_SIZE: '4' });
    for (let i = 0; i < 2; i++) sources.push(await createDataSource(env).initialize());
    await runMigrations(sources[0]!);
  });
  afterAll(async () => {
    for (const ds of sources) await ds.destroy();
    await db?.drop();
  });

  const bid = (amount: bigint): Omit<Bid, 'receivedAt'> => ({
    id: uuidv7(),
    chainId: 1,
    targetHash: `0x${'aa'.repeat(32)}`,
    searcher: `0x${'bb'.repeat(20)}`,
    bundleHash: `0x${'cc'.repeat(32)}`,
    txs: [{ raw: '0x02', hash: `0x${'dd'.repeat(32)}`, canRevert: false }],
    blockMin: 10n,
    blockMax: 12n,
    bid: amount,
    simBlock: 9n,
  });

  it('two replicas deciding the same (target, block) with different winners both get the first one written', async () => {
    const [a, b] = sources.map((ds) => new BundlesRepository(ds));
    const [da, db2] = sources.map((ds) => new SubmissionsRepository(ds));
    const [low, high] = [bid(1n), bid(2n)];
    await a!.insert(low);
    await a!.insert(high);
    const stored = await Promise.all([a!.get(low.id), a!.get(high.id)]);
    const decisions = await Promise.all([da!.decide(1, low.targetHash, 11n, stored[0]), db2!.decide(1, low.targetHash, 11n, stored[1])]);
    expect(decisions[0]!.bundleId).toBe(decisions[1]!.bundleId);
    expect([low.id, high.id]).toContain(decisions[0]!.bundleId);
    // Later attempts (a replica that restarted, or lagged) answer the same.
    expect((await db2!.decide(1, low.targetHash, 11n, null)).bundleId).toBe(decisions[0]!.bundleId);
    // The candidates of a block: highest bid first.
    expect((await b!.candidates(1, low.targetHash, 11n, 5)).map((c) => c.id)).toEqual([high.id, low.id]);
    expect(await b!.candidates(1, low.targetHash, 13n, 5)).toEqual([]);
  });

  it('a tie goes to the bid received first', async () => {
    const target = `0x${'ee'.repeat(32)}`;
    const first = { ...bid(5n), targetHash: target };
    const second = { ...bid(5n), targetHash: target };
    const repo = new BundlesRepository(sources[1]!);
    await repo.insert(first);
    await repo.insert(second);
    expect((await repo.candidates(1, target, 10n, 5)).map((c) => c.id)).toEqual([first.id, second.id]);
  });
});
