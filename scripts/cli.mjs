#!/usr/bin/env node
// `npm run -s apikey:create -- …`, `apikey:revoke`, `bench:intents`, `executor:deploy`, `openapi`: make sure
// the code is installed, built and (for the commands that use it) the database migrated, all
// quietly, on stderr, then run the command. Only the command itself writes to stdout.
import { join } from 'node:path';
import { bootstrapAndMigrate, build, ensureInstalled, ROOT, say, withDefaults } from './lib.mjs';

const COMMANDS = {
  'apikey:create': ['apps/gateway/dist/cli/apikey.js', 'create'],
  'apikey:revoke': ['apps/gateway/dist/cli/apikey.js', 'revoke'],
  'apikey:limit': ['apps/gateway/dist/cli/apikey.js', 'limit'],
  'source:create': ['apps/gateway/dist/cli/source.js', 'create'],
  'bench:intents': ['bench/dist/intents/main.js'],
  'bench:simulate': ['bench/dist/simulate/main.js'],
  'bench:payouts': ['bench/dist/payouts/main.js'],
  'bench:launch': ['bench/dist/launch/main.js'],
  'bench:executor-gas': ['bench/dist/executor-gas/main.js'],
  'bench:sim-isolation': ['bench/dist/sim-isolation/main.js'],
  'bench:failover': ['bench/dist/failover/main.js'],
  'bench:json-depth': ['bench/dist/json-depth/main.js'],
  'bench:cluster': ['bench/dist/cluster/main.js'],
  'bench:orderflow': ['bench/dist/orderflow/main.js'],
  'bench:exit': ['bench/dist/exit/main.js'],
  'executor:deploy': ['packages/executor/dist/cli/deploy.js'],
  openapi: ['apps/gateway/dist/cli/openapi.js'],
};
/** Commands that need no database (only a chain's node). */
const NO_DATABASE = new Set(['bench:executor-gas', 'bench:sim-isolation', 'bench:failover', 'bench:json-depth', 'bench:cluster', 'executor:deploy', 'openapi']);

const [name, ...args] = process.argv.slice(2);
const command = COMMANDS[name];
if (!command) {
  say(`unknown command ${name}; known: ${Object.keys(COMMANDS).join(', ')}`);
  process.exit(64);
}
const env = withDefaults();
try {
  ensureInstalled({ quiet: true });
  build({ quiet: true });
  if (!NO_DATABASE.has(name)) await bootstrapAndMigrate(env, { quiet: true });
} catch (err) {
  const hint = NO_DATABASE.has(name) ? '' : ` (is Postgres running on ${env.PGHOST}:${env.PGPORT}? \`npm start\` starts one if not)`;
  say(`${name}: ${err.message}${hint}`);
  process.exit(1);
}
const [script, ...fixed] = command;
const { spawnSync } = await import('node:child_process');
const result = spawnSync(process.execPath, [join(ROOT, script), ...fixed, ...args], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
