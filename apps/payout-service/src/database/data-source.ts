import { runMigrations as runMigrationsLocked } from '@tradeinfra/service-kit';
import { DataSource } from 'typeorm';
import type { PayoutServiceEnv } from '../config/env.js';
import { EntryEntity, PayoutEntity, SourceEntity } from '../ledger/ledger.entities.js';
import { migrations } from './migrations/index.js';

export const SCHEMA = 'payout';

type DbEnv = Pick<
  PayoutServiceEnv,
  'PGHOST' | 'PGPORT' | 'PGDATABASE' | 'PAYOUT_DB_USER' | 'PAYOUT_DB_PASSWORD' | 'PAYOUT_DB_POOL_SIZE'
>;

/** The service's only database handle: its own role, its own schema, never `synchronize`. */
export function createDataSource(env: DbEnv): DataSource {
  return new DataSource({
    type: 'postgres',
    host: env.PGHOST,
    port: env.PGPORT,
    database: env.PGDATABASE,
    username: env.PAYOUT_DB_USER,
    password: env.PAYOUT_DB_PASSWORD,
    schema: SCHEMA,
    entities: [SourceEntity, EntryEntity, PayoutEntity],
    migrations,
    migrationsTableName: 'payout_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: ['error'],
    extra: { max: env.PAYOUT_DB_POOL_SIZE, application_name: 'payout-service' },
  });
}

/** Any fixed number: serialises migration runs of concurrent replicas. */
const MIGRATION_LOCK_KEY = 7_330_000;

export function runMigrations(ds: DataSource): Promise<string[]> {
  return runMigrationsLocked(ds, MIGRATION_LOCK_KEY);
}
