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

  static async create(prefix = 'test'): Promise<TestDatabase> {
    const name = `ti_${prefix}_${randomBytes(5).toString('hex')}`;
    await bootstrapDatabase({ database: name });
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
