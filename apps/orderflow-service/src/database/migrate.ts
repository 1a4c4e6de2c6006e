import 'reflect-metadata';
import { loadEnv } from '../config/env.js';
import { createDataSource, runMigrations } from './data-source.js';

/** Runs pending migrations of the `orderflow` schema as the service's own role. */
const ds = await createDataSource({ ...loadEnv(), ORDERFLOW_DB_POOL_SIZE: 2 }).initialize();
try {
  // --check (the deployments' init step): exit 3 while a migration is pending, apply nothing.
  if (process.argv.includes('--check')) {
    const pending = await ds.showMigrations();
    console.log(`orderflow: ${pending ? 'migrations pending' : 'schema up to date'}`);
    process.exitCode = pending ? 3 : 0;
  } else {
    const applied = await runMigrations(ds);
    console.log(`orderflow: ${applied.length ? `applied ${applied.join(', ')}` : 'schema up to date'}`);
  }
} finally {
  await ds.destroy();
}
