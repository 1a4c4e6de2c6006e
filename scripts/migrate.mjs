#!/usr/bin/env node
// Bootstraps the database (roles, schemas) and runs every service's migrations. Needs a build.
//
// `migrate.mjs --wait APP…` (the Kubernetes deployments' init container): applies nothing and
// needs no admin login; it waits until the named apps' schemas (gateway, intent-service,
// payout-service, orderflow-service) have no pending migration, checked as each app's own role, so a new version's
// pods start only once the migration Job has run. MIGRATE_WAIT_SECONDS bounds the wait (600).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bootstrapAndMigrate, ROOT, say, withDefaults } from './lib.mjs';

const APPS = ['gateway', 'intent-service', 'payout-service', 'orderflow-service'];

async function waitForMigrations(apps) {
  const unknown = apps.filter((a) => !APPS.includes(a));
  if (apps.length === 0 || unknown.length > 0) throw new Error(`--wait needs apps among ${APPS.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  const deadline = Date.now() + Number(process.env.MIGRATE_WAIT_SECONDS || 600) * 1000;
  for (const app of apps) {
    for (;;) {
      const check = spawnSync(process.execPath, [join(ROOT, 'apps', app, 'dist', 'database', 'migrate.js'), '--check'], { encoding: 'utf8' });
      if (check.status === 0) {
        say(`${app}: schema up to date`);
        break;
      }
      const why = (check.stdout + check.stderr).trim().split('\n').pop();
      if (Date.now() > deadline) throw new Error(`${app}: still not migrated (${why}); has the migration Job run?`);
      say(`${app}: waiting for the migration Job (${why})`);
      await sleep(2_000);
    }
  }
}

try {
  const args = process.argv.slice(2);
  if (args[0] === '--wait') await waitForMigrations(args.slice(1));
  else await bootstrapAndMigrate(withDefaults());
} catch (err) {
  say(`migrate failed: ${err.message}`);
  process.exit(1);
}
