import { ADVISORY_LOCKS, createServiceDataSource, runMigrations as runMigrationsLocked } from '@tradeinfra/service-kit';
import type { DataSource } from 'typeorm';
import { ApiKeyEntity, TenantEntity } from '../auth/api-key.entity.js';
import type { GatewayEnv } from '../config/env.js';
import { migrations } from './migrations/index.js';

export const SCHEMA = 'gateway';
/** Any fixed number: serialises migration runs of concurrent replicas. */
const MIGRATION_LOCK_KEY = ADVISORY_LOCKS.gatewayMigrations;

type DbEnv = Pick<GatewayEnv, 'PGHOST' | 'PGPORT' | 'PGDATABASE' | 'GATEWAY_DB_USER' | 'GATEWAY_DB_PASSWORD' | 'GATEWAY_DB_POOL_SIZE'>;

export function createDataSource(env: DbEnv): DataSource {
  return createServiceDataSource({
    host: env.PGHOST,
    port: env.PGPORT,
    database: env.PGDATABASE,
    username: env.GATEWAY_DB_USER,
    password: env.GATEWAY_DB_PASSWORD,
    poolSize: env.GATEWAY_DB_POOL_SIZE,
    schema: SCHEMA,
    entities: [TenantEntity, ApiKeyEntity],
    migrations,
    appName: 'gateway',
  });
}

export function runMigrations(ds: DataSource): Promise<string[]> {
  return runMigrationsLocked(ds, MIGRATION_LOCK_KEY);
}
