import { ADVISORY_LOCKS, createServiceDataSource, runMigrations as runMigrationsLocked } from '@tradeinfra/service-kit';
import type { DataSource } from 'typeorm';
import { BundleEntity, SubmissionEntity } from '../auction/auction.entities.js';
import { CaptureEntity, OutboxEntity } from '../capture/capture.entities.js';
import type { OrderflowServiceEnv } from '../config/env.js';
import { PrivateTxEntity } from '../intake/private-tx.entity.js';
import { migrations } from './migrations/index.js';

export const SCHEMA = 'orderflow';

type DbEnv = Pick<OrderflowServiceEnv, 'PGHOST' | 'PGPORT' | 'PGDATABASE' | 'ORDERFLOW_DB_USER' | 'ORDERFLOW_DB_PASSWORD' | 'ORDERFLOW_DB_POOL_SIZE'>;

export function createDataSource(env: DbEnv): DataSource {
  return createServiceDataSource({
    host: env.PGHOST,
    port: env.PGPORT,
    database: env.PGDATABASE,
    username: env.ORDERFLOW_DB_USER,
    password: env.ORDERFLOW_DB_PASSWORD,
    poolSize: env.ORDERFLOW_DB_POOL_SIZE,
    schema: SCHEMA,
    entities: [PrivateTxEntity, BundleEntity, SubmissionEntity, CaptureEntity, OutboxEntity],
    migrations,
    appName: 'orderflow-service',
  });
}

export function runMigrations(ds: DataSource): Promise<string[]> {
  return runMigrationsLocked(ds, ADVISORY_LOCKS.orderflowMigrations);
}
