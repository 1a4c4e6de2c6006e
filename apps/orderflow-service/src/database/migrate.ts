import 'reflect-metadata';
import { loadEnv } from '../config/env.js';
import { createDataSource, runMigrations } from './data-source.js';

/** Runs pending migrations of the `orderflow` schema as the service's own role. */
const ds = await createDataSource({ ...loadEnv(), ORDERFLOW_DB_POOL_SIZE: 2 }).initialize();
try {
  const applied = await runMigrations(ds);
  console.log(`orderflow: ${applied.length ? `applied ${applied.join(', ')}` : 'schema up to date'}`);
} finally {
  await ds.destroy();
}
