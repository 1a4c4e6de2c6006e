import { Global, Inject, Logger, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource, type Logger as TypeOrmLogger, type MixedList, type EntitySchema } from 'typeorm';

/**
 * TypeORM's log, without SQL: TypeORM's own loggers print a failing statement with its
 * parameters (values clients sent). A failed query is logged by whoever handles the error, with
 * its request id, as SQLSTATE code and message only (see `describeError`). Passed on: TypeORM's
 * warnings; a slow query's duration. Schema and migration chatter stays out, as before (the
 * migrate scripts report what they applied).
 */
export class SafeQueryLogger implements TypeOrmLogger {
  private readonly logger = new Logger('Database');

  logQuery(): void {}
  logQueryError(): void {}
  logQuerySlow(time: number): void {
    this.logger.warn(`slow query: ${time} ms`);
  }
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
  }
}

export interface ServiceDatabaseOptions {
  host: string;
  port: number;
  database: string;
  /** The service's own role: rights on its own schema only. */
  username: string;
  password?: string;
  poolSize: number;
  /** The schema the service owns; its migrations table is `<schema>_migrations`. */
  schema: string;
  entities: MixedList<Function | string | EntitySchema>;
  migrations: Function[];
  appName: string;
}

/** A service's only database handle: its own role, its own schema, never `synchronize`. */
export function createServiceDataSource(o: ServiceDatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    host: o.host,
    port: o.port,
    database: o.database,
    username: o.username,
    password: o.password,
    schema: o.schema,
    entities: o.entities,
    migrations: o.migrations,
    migrationsTableName: `${o.schema}_migrations`,
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: ['error', 'warn'],
    logger: new SafeQueryLogger(),
    extra: { max: o.poolSize, application_name: o.appName },
  });
}

/**
 * Applies a service's pending migrations under a Postgres advisory lock (`lockKey`, one per
 * service), so replicas starting together migrate one after the other, then (re)creates the
 * `definitions` the service keeps in code rather than in migrations (SQL functions such as a
 * record renderer: `CREATE OR REPLACE …`). Returns the names of the migrations applied.
 */
export async function runMigrations(ds: DataSource, lockKey: number, definitions: readonly string[] = []): Promise<string[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [lockKey]);
    const applied = await ds.runMigrations({ transaction: 'each' });
    // Definitions kept in code (CREATE OR REPLACE …), always as the code says, under the same lock.
    for (const sql of definitions) await runner.query(sql);
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [lockKey]).catch(() => undefined);
    await runner.release();
  }
}

/** Provides the initialised DataSource to the whole app and closes it last on shutdown. */
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  static forRoot(create: () => DataSource): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [{ provide: DataSource, useFactory: () => create().initialize() }],
      exports: [DataSource],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
