import { runMigrations as runMigrationsLocked } from '@tradeinfra/service-kit';
import { DataSource } from 'typeorm';
import type { IntentServiceEnv } from '../config/env.js';
import { IdempotencyKeyEntity, IntentEntity } from '../intents/intent.entity.js';
import { OutboxEventEntity } from '../outbox/outbox.entity.js';
import { migrations } from './migrations/index.js';

export const SCHEMA = 'intent';

type DbEnv = Pick<
  IntentServiceEnv,
  'PGHOST' | 'PGPORT' | 'PGDATABASE' | 'INTENT_DB_USER' | 'INTENT_DB_PASSWORD' | 'INTENT_DB_POOL_SIZE'
>;

/** The service's only database handle: its own role, its own schema, never `synchronize`. */
export function createDataSource(env: DbEnv): DataSource {
  return new DataSource({
    type: 'postgres',
    host: env.PGHOST,
    port: env.PGPORT,
    database: env.PGDATABASE,
    username: env.INTENT_DB_USER,
    password: env.INTENT_DB_PASSWORD,
    schema: SCHEMA,
    entities: [IntentEntity, IdempotencyKeyEntity, OutboxEventEntity],
    migrations,
    migrationsTableName: 'intent_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: ['error'],
    extra: { max: env.INTENT_DB_POOL_SIZE, application_name: 'intent-service' },
  });
}

/** Any fixed number: serialises migration runs of concurrent replicas. */
const MIGRATION_LOCK_KEY = 7_310_000;

export function runMigrations(ds: DataSource): Promise<string[]> {
  return runMigrationsLocked(ds, MIGRATION_LOCK_KEY);
}
