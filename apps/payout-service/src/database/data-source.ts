import { ADVISORY_LOCKS, createServiceDataSource, runMigrations as runMigrationsLocked } from '@tradeinfra/service-kit';
import type { DataSource } from 'typeorm';
import { AdminAuditEntity, EntryEntity, PayoutEntity, SettlementNonceEntity, SourceEntity } from '../ledger/ledger.entities.js';
import type { PayoutServiceEnv } from '../config/env.js';
import { migrations } from './migrations/index.js';

export const SCHEMA = 'payout';
/** Any fixed number: serialises migration runs of concurrent replicas. */
const MIGRATION_LOCK_KEY = ADVISORY_LOCKS.payoutMigrations;

type DbEnv = Pick<PayoutServiceEnv, 'PGHOST' | 'PGPORT' | 'PGDATABASE' | 'PAYOUT_DB_USER' | 'PAYOUT_DB_PASSWORD' | 'PAYOUT_DB_POOL_SIZE'>;

export function createDataSource(env: DbEnv): DataSource {
  return createServiceDataSource({
    host: env.PGHOST,
    port: env.PGPORT,
    database: env.PGDATABASE,
    username: env.PAYOUT_DB_USER,
    password: env.PAYOUT_DB_PASSWORD,
    poolSize: env.PAYOUT_DB_POOL_SIZE,
    schema: SCHEMA,
    entities: [SourceEntity, EntryEntity, PayoutEntity, AdminAuditEntity, SettlementNonceEntity],
    migrations,
    appName: 'payout-service',
  });
}

export function runMigrations(ds: DataSource): Promise<string[]> {
  return runMigrationsLocked(ds, MIGRATION_LOCK_KEY);
}
