import { randomBytes } from 'node:crypto';
import pg from 'pg';
// The production bootstrap, so tests run on exactly the roles and grants `npm start` makes.
import { adminConfig, bootstrapDatabase } from '../../../infra/postgres/bootstrap.mjs';

/**
 * A database of its own for one test file, bootstrapped like production (schemas, roles,
 * grants). Dropped by `drop()`.
 */
export class TestDatabase {
  private constructor(readonly name: string) {}

  /** `env`: the bootstrap's (e.g. `INTENT_DB_USER` for a role of this test's own). */
  static async create(prefix = 'test', env: NodeJS.ProcessEnv = process.env): Promise<TestDatabase> {
    const name = `ti_${prefix}_${randomBytes(5).toString('hex')}`;
    await bootstrapDatabase({ env, database: name });
    return new TestDatabase(name);
  }

  /** Env overrides pointing a service at this database. */
  get env(): Record<string, string> {
    return { PGDATABASE: this.name };
  }

  /** A superuser client on this database, for assertions and seeding. */
  async admin(): Promise<pg.Client> {
    const client = new pg.Client(adminConfig(process.env, this.name));
    await client.connect();
    return client;
  }

  async query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = await this.admin();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  /**
   * Takes the database away as a drop would, without losing it: refuses new connections,
   * terminates every open one and renames it (Postgres renames no database in use). Until
   * `restore()` renames it back, every connection by its name fails with 3D000.
   */
  async hide(): Promise<{ restore: () => Promise<void> }> {
    const hidden = `${this.name}_gone`;
    await withAdmin(async (admin) => {
      await admin.query(`ALTER DATABASE "${this.name}" WITH ALLOW_CONNECTIONS false`);
      // A backend is gone a moment after it is told to terminate: rename once none is left.
      for (let attempt = 0; ; attempt++) {
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [this.name]);
        try {
          await admin.query(`ALTER DATABASE "${this.name}" RENAME TO "${hidden}"`);
          break;
        } catch (err) {
          if ((err as { code?: string }).code !== '55006' || attempt >= 100) throw err; // 55006: still in use
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      await admin.query(`ALTER DATABASE "${hidden}" WITH ALLOW_CONNECTIONS true`);
    });
    return { restore: () => withAdmin((admin) => admin.query(`ALTER DATABASE "${hidden}" RENAME TO "${this.name}"`).then(() => undefined)) };
  }

  async drop(): Promise<void> {
    const client = new pg.Client(adminConfig(process.env));
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${this.name}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }
}

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client(adminConfig(process.env));
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Takes a login role away as a drop would: renames it and terminates its sessions, so every
 * connection as `role` fails with 28000 until `restore()` renames it back. For a role of the
 * test's own only (roles are shared by every database of the server).
 */
export async function hideRole(role: string): Promise<{ restore: () => Promise<void> }> {
  const hidden = `${role}_gone`;
  await withAdmin(async (admin) => {
    await admin.query(`ALTER ROLE "${role}" RENAME TO "${hidden}"`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [hidden]);
  });
  return { restore: () => withAdmin((admin) => admin.query(`ALTER ROLE "${hidden}" RENAME TO "${role}"`).then(() => undefined)) };
}

/** Drops a role a test made for itself (after the databases it had rights in are dropped). */
export async function dropRole(role: string): Promise<void> {
  await withAdmin((admin) => admin.query(`DROP ROLE IF EXISTS "${role}"`));
}
