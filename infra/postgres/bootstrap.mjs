#!/usr/bin/env node
// Database bootstrap, idempotent: the database, one login role per service, one schema per
// service owned by its role, and nothing else granted. A service's role can neither read nor
// create objects in another service's schema (or in `public`).
//
// Used by `npm start`, the tests, and the `migrate` container of docker-compose.yml.
// Env: PGHOST, PGPORT, PGDATABASE, PG_ADMIN_USER, PG_ADMIN_PASSWORD and, per service,
// <SERVICE>_DB_USER / <SERVICE>_DB_PASSWORD (passwords optional where auth is `trust`).
import pg from 'pg';

/** service → schema and role. Add a line here when a service gets its own schema. */
export const SERVICES = [
  { schema: 'gateway', userEnv: 'GATEWAY_DB_USER', passwordEnv: 'GATEWAY_DB_PASSWORD', defaultUser: 'gateway_svc' },
  { schema: 'intent', userEnv: 'INTENT_DB_USER', passwordEnv: 'INTENT_DB_PASSWORD', defaultUser: 'intent_svc' },
  { schema: 'payout', userEnv: 'PAYOUT_DB_USER', passwordEnv: 'PAYOUT_DB_PASSWORD', defaultUser: 'payout_svc' },
  { schema: 'orderflow', userEnv: 'ORDERFLOW_DB_USER', passwordEnv: 'ORDERFLOW_DB_PASSWORD', defaultUser: 'orderflow_svc' },
];

/** Any fixed number, taken in the `postgres` database by every bootstrap. */
const BOOTSTRAP_LOCK_KEY = 7_300_000;

const ident = (name) => `"${String(name).replaceAll('"', '""')}"`;
const literal = (value) => `'${String(value).replaceAll("'", "''")}'`;

export function adminConfig(env = process.env, database = 'postgres') {
  return {
    host: env.PGHOST || '127.0.0.1',
    port: Number(env.PGPORT || 5432),
    user: env.PG_ADMIN_USER || 'postgres',
    password: env.PG_ADMIN_PASSWORD || undefined,
    database,
    connectionTimeoutMillis: 5_000,
  };
}

async function ignoring(codes, work) {
  try {
    await work();
  } catch (err) {
    if (!codes.includes(err.code)) throw err;
  }
}

/**
 * @param {{ env?: NodeJS.ProcessEnv, database?: string, log?: (line: string) => void }} options
 */
export async function bootstrapDatabase({ env = process.env, database, log = () => {} } = {}) {
  const dbName = database || env.PGDATABASE || 'tradeinfra';
  const admin = new pg.Client(adminConfig(env));
  await admin.connect();
  try {
    // One bootstrap at a time on this server (GRANT/REVOKE race each other otherwise); held
    // until the end, released when the session closes.
    await admin.query('SELECT pg_advisory_lock($1)', [BOOTSTRAP_LOCK_KEY]);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (rowCount === 0) {
      // 42P04 duplicate_database, 23505: a concurrent bootstrap created it first.
      await ignoring(['42P04', '23505'], () => admin.query(`CREATE DATABASE ${ident(dbName)}`));
      log(`created database ${dbName}`);
    }
    for (const service of SERVICES) {
      const user = env[service.userEnv] || service.defaultUser;
      const password = env[service.passwordEnv];
      const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [user]);
      if (exists.rowCount === 0) {
        // 42710 duplicate_object: a concurrent bootstrap created it first.
        await ignoring(['42710', '23505'], () =>
          admin.query(`CREATE ROLE ${ident(user)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT`),
        );
        log(`created role ${user}`);
      }
      if (password) await admin.query(`ALTER ROLE ${ident(user)} PASSWORD ${literal(password)}`);
    }
    await grantSchemas(env, dbName);
  } finally {
    await admin.end();
  }
  return dbName;
}

async function grantSchemas(env, dbName) {
  const db = new pg.Client(adminConfig(env, dbName));
  await db.connect();
  try {
    await db.query(`REVOKE ALL ON DATABASE ${ident(dbName)} FROM PUBLIC`);
    await db.query('REVOKE ALL ON SCHEMA public FROM PUBLIC');
    for (const service of SERVICES) {
      const user = env[service.userEnv] || service.defaultUser;
      await db.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${ident(dbName)} TO ${ident(user)}`);
      await ignoring(['42P06', '23505'], () =>
        db.query(`CREATE SCHEMA IF NOT EXISTS ${ident(service.schema)} AUTHORIZATION ${ident(user)}`),
      );
      await db.query(`ALTER SCHEMA ${ident(service.schema)} OWNER TO ${ident(user)}`);
      await db.query(`REVOKE ALL ON SCHEMA ${ident(service.schema)} FROM PUBLIC`);
      await db.query(`ALTER ROLE ${ident(user)} IN DATABASE ${ident(dbName)} SET search_path = ${ident(service.schema)}`);
    }
  } finally {
    await db.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  bootstrapDatabase({ log: (line) => console.log(`db: ${line}`) })
    .then((name) => console.log(`db: ${name} ready (schemas ${SERVICES.map((s) => s.schema).join(', ')})`))
    .catch((err) => {
      console.error(`db bootstrap failed: ${err.message}`);
      process.exit(1);
    });
}
