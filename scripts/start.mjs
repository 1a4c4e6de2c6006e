#!/usr/bin/env node
// `npm start`: install if needed, build, find Postgres (or start an embedded one) and NATS,
// bootstrap + migrate the database, then run the gateway and the intent, simulation and payout services in the
// foreground with prefixed logs. Ctrl-C stops everything.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  bootstrapAndMigrate,
  build,
  ensureInstalled,
  natsServersReachable,
  postgresReachable,
  ROOT,
  say,
  startEmbeddedPostgres,
  withDefaults,
} from './lib.mjs';

const SERVICES = [
  { name: 'intent-service', entry: 'apps/intent-service/dist/main.js' },
  { name: 'simulation-service', entry: 'apps/simulation-service/dist/main.js' },
  { name: 'payout-service', entry: 'apps/payout-service/dist/main.js' },
  { name: 'orderflow-service', entry: 'apps/orderflow-service/dist/main.js' },
  { name: 'gateway', entry: 'apps/gateway/dist/main.js' },
];

// Development defaults: one log line per request in each service, with its x-request-id.
const env = withDefaults({ LOG_REQUESTS: 'true', ...process.env });
const children = new Map();
let stopPostgres = null;
let stopping = false;

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  await Promise.all(
    [...children.values()].map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(killer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  if (stopPostgres) {
    await stopPostgres().catch(() => {});
    say('embedded Postgres stopped');
  }
  process.exit(code);
}

/** Why NATS refuses a connection with the services' settings (users, TLS), or null when it accepts it. */
async function natsRefuses(env) {
  const { connectNats } = await import('../packages/service-kit/dist/index.js');
  const { loadEnv } = await import('../apps/gateway/dist/config/env.js');
  try {
    const nc = await connectNats(loadEnv(env), 'npm-start-check', { timeout: 5_000 });
    await nc.close();
    return null;
  } catch (err) {
    return err.message;
  }
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

try {
  ensureInstalled();
  build();
  // NATS_URL may list several servers of a cluster (comma-separated): one answering is enough.
  const servers = await natsServersReachable(env.NATS_URL);
  if (!servers.some((s) => s.ok)) {
    process.stderr.write(
      `NATS is not reachable at ${env.NATS_URL}: start one with JetStream (\`nats-server -js\`, or \`docker compose up -d nats\`) or set NATS_URL, then run npm start again.\n`,
    );
    process.exit(1);
  }
  for (const s of servers.filter((s) => !s.ok)) say(`NATS server ${s.url} is not reachable; the services use the others`);
  const natsRefusal = await natsRefuses(env);
  if (natsRefusal) {
    process.stderr.write(`NATS at ${env.NATS_URL} refused the connection (${natsRefusal}): check NATS_USER, NATS_PASSWORD and the NATS_TLS_* settings.\n`);
    process.exit(1);
  }
  if (!(await postgresReachable(env))) {
    say(`no Postgres at ${env.PGHOST}:${env.PGPORT}: starting an embedded one (data in .data/postgres)`);
    stopPostgres = await startEmbeddedPostgres(env);
    say(`embedded Postgres running on ${env.PGHOST}:${env.PGPORT}`);
  }
  await bootstrapAndMigrate(env);
} catch (err) {
  say(`start failed: ${err.message}`);
  await shutdown(1);
}

for (const service of SERVICES) {
  const child = spawn(process.execPath, ['--enable-source-maps', join(ROOT, service.entry)], {
    cwd: ROOT,
    env: process.stdout.isTTY ? env : { ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(service.name, child);
  // Each line already names its service ([gateway] / [intent-service]); pass them through whole.
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(line + '\n'));
  }
  child.once('exit', (code, signal) => {
    if (stopping) return;
    say(`${service.name} exited (${signal ?? code}); stopping the rest`);
    void shutdown(code || 1);
  });
}
say(`gateway on http://127.0.0.1:${env.PORT ?? 3000} (docs at /docs); create a key with: npm run -s apikey:create -- --name me`);
