import { DataSource } from 'typeorm';
import { ApiKeyEntity, TenantEntity } from '../auth/api-key.entity.js';
import type { GatewayEnv } from '../config/env.js';
import { migrations } from './migrations/index.js';

export const SCHEMA = 'gateway';

type DbEnv = Pick<GatewayEnv, 'PGHOST' | 'PGPORT' | 'PGDATABASE' | 'GATEWAY_DB_USER' | 'GATEWAY_DB_PASSWORD' | 'GATEWAY_DB_POOL_SIZE'>;

export function createDataSource(env: DbEnv): DataSource {
  return new DataSource({
    type: 'postgres',
    host: env.PGHOST,
    port: env.PGPORT,
    database: env.PGDATABASE,
    username: env.GATEWAY_DB_USER,
    password: env.GATEWAY_DB_PASSWORD,
    schema: SCHEMA,
    entities: [TenantEntity, ApiKeyEntity],
    migrations,
    migrationsTableName: 'gateway_migrations',
    synchronize: false,
    logging: ['error'],
    extra: { max: env.GATEWAY_DB_POOL_SIZE, application_name: 'gateway' },
  });
}

/** Any fixed number: serialises migration runs of concurrent replicas. */
const MIGRATION_LOCK_KEY = 7_320_000;

export async function runMigrations(ds: DataSource): Promise<string[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await runner.release();
  }
}
