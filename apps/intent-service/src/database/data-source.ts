import { ADVISORY_LOCKS, createServiceDataSource, runMigrations as runMigrationsLocked } from '@tradeinfra/service-kit';
import type { DataSource } from 'typeorm';
import { IdempotencyKeyEntity, IntentEntity, SettingEntity, SigningSecretEntity } from '../intents/intent.entity.js';
import { ChainBlockEntity, LaunchEntity, PendingLaunchEntity } from '../launch/launch.entities.js';
import { TokenEntity } from '../tokens/token.entity.js';
import { OutboxEventEntity } from '../outbox/outbox.entity.js';
import type { IntentServiceEnv } from '../config/env.js';
import { RECORD_JSON_FUNCTION } from '../intents/intent-record.sql.js';
import { migrations } from './migrations/index.js';

export const SCHEMA = 'intent';
/** Any fixed number: serialises migration runs of concurrent replicas. */
const MIGRATION_LOCK_KEY = ADVISORY_LOCKS.intentMigrations;

type DbEnv = Pick<IntentServiceEnv, 'PGHOST' | 'PGPORT' | 'PGDATABASE' | 'INTENT_DB_USER' | 'INTENT_DB_PASSWORD' | 'INTENT_DB_POOL_SIZE'>;

export function createDataSource(env: DbEnv): DataSource {
  return createServiceDataSource({
    host: env.PGHOST,
    port: env.PGPORT,
    database: env.PGDATABASE,
    username: env.INTENT_DB_USER,
    password: env.INTENT_DB_PASSWORD,
    poolSize: env.INTENT_DB_POOL_SIZE,
    schema: SCHEMA,
    entities: [
      IntentEntity,
      IdempotencyKeyEntity,
      OutboxEventEntity,
      SettingEntity,
      SigningSecretEntity,
      ChainBlockEntity,
      LaunchEntity,
      PendingLaunchEntity,
      TokenEntity,
    ],
    migrations,
    appName: 'intent-service',
  });
}

/** Applies pending migrations, then defines `intent.record_json` as intent-record.sql.ts says. */
export function runMigrations(ds: DataSource): Promise<string[]> {
  return runMigrationsLocked(ds, MIGRATION_LOCK_KEY, [RECORD_JSON_FUNCTION]);
}
