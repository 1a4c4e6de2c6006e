import { TestDatabase } from '@tradeinfra/test-support';
import pg from 'pg';
import { loadEnv as gatewayEnv } from '../../apps/gateway/src/config/env.js';
import { createDataSource as gatewayDataSource, runMigrations as migrateGateway } from '../../apps/gateway/src/database/data-source.js';
import { loadEnv as intentEnv } from '../../apps/intent-service/src/config/env.js';
import { createDataSource as intentDataSource, runMigrations as migrateIntent } from '../../apps/intent-service/src/database/data-source.js';
import { loadEnv as payoutEnv } from '../../apps/payout-service/src/config/env.js';
import { createDataSource as payoutDataSource, runMigrations as migratePayout } from '../../apps/payout-service/src/database/data-source.js';
import { loadEnv as orderflowEnv } from '../../apps/orderflow-service/src/config/env.js';
import { createDataSource as orderflowDataSource, runMigrations as migrateOrderflow } from '../../apps/orderflow-service/src/database/data-source.js';
import { bootstrapDatabase } from '../../infra/postgres/bootstrap.mjs';

describe('database: one schema and one role per service', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await TestDatabase.create('roles');
    const env = { ...process.env, ...db.env };
    for (const [ds, migrate] of [
      [intentDataSource(intentEnv(env)), migrateIntent],
      [gatewayDataSource(gatewayEnv(env)), migrateGateway],
      [payoutDataSource(payoutEnv(env)), migratePayout],
      [orderflowDataSource(orderflowEnv(env)), migrateOrderflow],
    ] as const) {
      await ds.initialize();
      await migrate(ds);
      // Entities and migrations agree: the schema builder has nothing left to do.
      const pending = await ds.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
      await ds.destroy();
    }
  });
  afterAll(() => db?.drop());

  async function as(user: string, sql: string): Promise<unknown> {
    const client = new pg.Client({ host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user, database: db.name });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  }

  it.each([
    ['gateway_svc', 'SELECT * FROM intent.intents'],
    ['gateway_svc', 'SELECT * FROM intent.outbox'],
    ['intent_svc', 'SELECT * FROM gateway.api_keys'],
    ['intent_svc', 'CREATE TABLE public.sneaky (id int)'],
    ['intent_svc', 'CREATE TABLE gateway.sneaky (id int)'],
    ['payout_svc', 'SELECT * FROM intent.intents'],
    ['payout_svc', 'SELECT * FROM gateway.tenants'],
    ['gateway_svc', 'SELECT * FROM payout.entries'],
    ['intent_svc', 'SELECT * FROM payout.payouts'],
    ['orderflow_svc', 'SELECT * FROM payout.entries'],
    ['payout_svc', 'SELECT * FROM orderflow.captures'],
  ])('%s cannot run: %s', async (user, sql) => {
    await expect(as(user, sql)).rejects.toThrow(/permission denied/);
  });

  it('each role reads its own schema, found through its search_path', async () => {
    await expect(as('intent_svc', 'SELECT count(*) FROM intents')).resolves.toEqual([{ count: '0' }]);
    await expect(as('gateway_svc', 'SELECT count(*) FROM api_keys')).resolves.toEqual([{ count: '0' }]);
    await expect(as('payout_svc', 'SELECT count(*) FROM entries')).resolves.toEqual([{ count: '0' }]);
    await expect(as('orderflow_svc', 'SELECT count(*) FROM captures')).resolves.toEqual([{ count: '0' }]);
  });

  it('bootstrapping again changes nothing and fails nothing', async () => {
    await expect(bootstrapDatabase({ database: db.name })).resolves.toBe(db.name);
    await Promise.all([bootstrapDatabase({ database: db.name }), bootstrapDatabase({ database: db.name })]);
    await expect(as('intent_svc', 'SELECT count(*) FROM intents')).resolves.toEqual([{ count: '0' }]);
  });
});
