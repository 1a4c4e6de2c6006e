import type { INestMicroservice } from '@nestjs/common';
import { TestDatabase, TestNatsServer, TestRpcClient } from '@tradeinfra/test-support';
import { DataSource } from 'typeorm';
import { createIntentService } from '../bootstrap.js';
import { loadEnv, type IntentServiceEnv } from '../config/env.js';
import { createDataSource, runMigrations } from '../database/data-source.js';

/** A migrated database of its own, for repository-level tests. */
export async function migratedDatabase(): Promise<{ db: TestDatabase; env: IntentServiceEnv; ds: DataSource }> {
  const db = await TestDatabase.create('intent');
  const env = loadEnv({ ...process.env, ...db.env });
  const ds = await createDataSource(env).initialize();
  await runMigrations(ds);
  return { db, env, ds };
}

export interface IntentServiceHarness {
  db: TestDatabase;
  nats: TestNatsServer;
  env: IntentServiceEnv;
  rpc: TestRpcClient;
  replicas: INestMicroservice[];
  /** Starts one more replica on the same database and NATS. */
  addReplica(): Promise<INestMicroservice>;
  close(): Promise<void>;
}

/** The real service on a private NATS server and its own migrated database. */
export async function startIntentService(overrides: Record<string, string> = {}): Promise<IntentServiceHarness> {
  const nats = await TestNatsServer.start();
  const { db, ds } = await migratedDatabase();
  await ds.destroy();
  const env = loadEnv({ ...process.env, INTENT_DB_POOL_SIZE: '8', ...db.env, ...nats.env, ...overrides });
  const replicas: INestMicroservice[] = [];
  const addReplica = async () => {
    const app = await createIntentService(env, false);
    replicas.push(app);
    return app;
  };
  await addReplica();
  const rpc = await TestRpcClient.connect(nats.url);
  return {
    db,
    nats,
    env,
    rpc,
    replicas,
    addReplica,
    async close() {
      await rpc.close().catch(() => undefined);
      for (const app of replicas) await app.close().catch(() => undefined);
      await nats.dispose();
      await db.drop();
    },
  };
}
