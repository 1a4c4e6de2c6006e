import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource, type MixedList, type EntitySchema } from 'typeorm';

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
    logging: ['error'],
    extra: { max: o.poolSize, application_name: o.appName },
  });
}

/**
 * Applies a service's pending migrations under a Postgres advisory lock (`lockKey`, one per
 * service), so replicas starting together migrate one after the other. Returns the names applied.
 */
export async function runMigrations(ds: DataSource, lockKey: number): Promise<string[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [lockKey]);
    const applied = await ds.runMigrations({ transaction: 'each' });
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
