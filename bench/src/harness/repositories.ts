// The product's repositories, built (apps/*/dist). The bench never copies their SQL: the
// baselines run the class's own statements on a plain pg pool, and the EXPLAINs capture the
// text it would send, so both follow the product when its SQL changes.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { ROOT } from './log.js';

/** What a repository needs of a TypeORM DataSource here: `query`, answering the rows. */
export interface QueryRunner {
  query(sql: string, params?: unknown[]): Promise<any>;
}

/** A built repository class, called the way the bench calls it (its methods are the product's). */
export type RepositoryClass = new (dataSource: QueryRunner) => any;

async function loadBuilt(app: string, file: string, name: string): Promise<RepositoryClass> {
  await import('reflect-metadata');
  const path = join(ROOT, 'apps', app, 'dist', file);
  const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  if (typeof mod[name] !== 'function') throw new Error(`${path} has no ${name}: build first`);
  return mod[name] as RepositoryClass;
}

/** The built IntentsRepository class (apps/intent-service/dist). */
export function loadIntentsRepository(): Promise<RepositoryClass> {
  return loadBuilt('intent-service', 'intents/intents.repository.js', 'IntentsRepository');
}

/** The built LedgerRepository class (apps/payout-service/dist), same use as loadIntentsRepository. */
export function loadLedgerRepository(): Promise<RepositoryClass> {
  return loadBuilt('payout-service', 'ledger/ledger.repository.js', 'LedgerRepository');
}

/** A DataSource stand-in for a repository: `query` on a pg pool, answering the rows (as TypeORM does for a SELECT / RETURNING). */
export function pgDataSource(pgPool: pg.Pool): QueryRunner {
  return { query: async (sql, params) => (await pgPool.query(sql, params)).rows };
}

/**
 * The SQL text and parameters `call(repository)` sends, without running it. `rows` is what the
 * fake query answers (default none; a method that reads `rows[0]` needs one).
 */
export async function captureRepositorySql(
  Repository: RepositoryClass,
  call: (repository: any) => Promise<unknown>,
  { rows = [] as unknown[] } = {},
): Promise<{ sql: string; params: unknown[] | undefined }> {
  let captured: { sql: string; params: unknown[] | undefined } | null = null;
  const repo: unknown = new Repository({
    query: (sql, params) => {
      captured ??= { sql, params };
      return Promise.resolve(rows);
    },
  });
  await call(repo);
  if (!captured) throw new Error('the repository sent no SQL');
  return captured;
}

/** The create body's optional fields, set to null as the contracts' schema leaves them (no validation). */
const OPTIONAL_INTENT_FIELDS = [
  'maxBuyTax',
  'maxSellTax',
  'minIn',
  'minOut',
  'minLiquidity',
  'feeBps',
  'feeRecipient',
  'firstOrFail',
  'maxSlippageBps',
  'gasTip',
];

/**
 * What the bench's baseline servers share (`name`: `baseline` or `bare`): the tenant
 * (BENCH_TENANT_ID, else exit 64), a pg pool connected as the superuser straight to the bench
 * database (BASELINE_POOL_SIZE, default 20: the intent service's INTENT_DB_POOL_SIZE default),
 * the built IntentsRepository on it (its exact SQL, nothing around it), and `withNulls(body)`.
 */
export async function baselineIntentStore(name: string) {
  const tenantId = process.env.BENCH_TENANT_ID;
  if (!tenantId) {
    process.stderr.write(`${name}: BENCH_TENANT_ID is required\n`);
    process.exit(64);
  }
  const pool = new pg.Pool({
    host: process.env.PGHOST || '127.0.0.1',
    port: Number(process.env.PGPORT || 5432),
    user: process.env.PG_ADMIN_USER || 'postgres',
    password: process.env.PG_ADMIN_PASSWORD || undefined,
    database: process.env.PGDATABASE,
    max: Number(process.env.BASELINE_POOL_SIZE || 20),
    application_name: `bench-${name}`,
  });
  pool.on('error', () => {}); // an idle client cut off (the bench dropping its database at the end)
  const IntentsRepository = await loadIntentsRepository();
  const repository = new IntentsRepository(pgDataSource(pool));
  const withNulls = (body: Record<string, unknown>): Record<string, unknown> => {
    const intent = { ...body };
    for (const k of OPTIONAL_INTENT_FIELDS) intent[k] ??= null;
    return intent;
  };
  return { tenantId, pool, repository, withNulls };
}
