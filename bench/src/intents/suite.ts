// Step 0: create through the full suite as `npm start` runs it, against the bare server.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { withDefaults } from '../../../scripts/lib.mjs';
import { BENCH_DIST, Figures, LoadOptions, LoadResult, ROOT, cpuMeter, fmtRun, log, round, runLoad, sleep, waitFor200 } from '../harness/index.js';
import { freePort } from '@tradeinfra/test-support';
import { CheckCreate, Env, MakeCreate, P, Pids, SUITE_APPS, children, phaseLimitMs, step } from './context.js';
import type pg from 'pg';

// ---------------------------------------------------------------- full suite vs bare

/** `a.reqPerSec / b.reqPerSec`, 2 decimals (null when b did nothing). */
export function ratioOf(a: Figures, b: Figures) {
  return b.reqPerSec > 0 ? round(a.reqPerSec / b.reqPerSec, 2) : null;
}

/** A create load of P.warmup + P.suiteRequests requests at P.concurrency; rows counted. */
export async function createLoad(port: number, make: LoadOptions['make'], checkCreate: CheckCreate, countIntents: () => Promise<number>, pids: Pids) {
  const before = await countIntents();
  const meter = cpuMeter(pids);
  const r = await runLoad({
    port,
    concurrency: P.concurrency,
    warmup: P.warmup,
    total: P.suiteRequests,
    maxMs: phaseLimitMs(),
    make,
    expect: 201,
    check: checkCreate,
  });
  r.cpuPercentOfOneCore = meter.stop();
  r.cpuMsPerRequest = cpuMsPerRequest(r);
  r.rowsInserted = (await countIntents()) - before;
  r.rowsExpected = r.completed + P.warmup;
  return r;
}

/**
 * CPU milliseconds each request cost, by process (and `total`, the load generator left out):
 * steadier than req/s on a shared machine, where other work takes CPU at will.
 */
export function cpuMsPerRequest(r: LoadResult) {
  const out: Figures = {};
  let total = 0;
  for (const [name, pct] of Object.entries<any>(r.cpuPercentOfOneCore)) {
    if (name === 'machine' || name === 'bench (load generator)' || typeof pct !== 'number') continue;
    out[name] = round((pct / 100) * (1000 / r.reqPerSec!), 3);
    total += out[name];
  }
  out.total = round(total, 3);
  return out;
}

/** The bare node:http + pg server (bench/src/intents/bare-server.ts): the same insert, nothing else. */
export async function bareCreate(baseEnv: Env, tenantId: string, makeCreate: MakeCreate, checkCreate: CheckCreate, countIntents: () => Promise<number>) {
  step('starting the bare node:http + pg server');
  const port = await freePort();
  const bare = children.start('bare', process.execPath, [join(BENCH_DIST, 'intents', 'bare-server.js')], {
    cwd: ROOT,
    env: { ...baseEnv, PORT: String(port), BENCH_TENANT_ID: tenantId },
    readyLine: /bare listening/,
  });
  await bare.ready;
  await waitFor200(port, '/health', { children, what: 'bare /health' });
  const out: Figures = {};
  for (const [name, query, what] of [
    ['row', '', 'the intent row'],
    ['withOutbox', '?outbox=1', 'the intent row and its outbox row (the repository create)'],
  ]) {
    step(`create load on the bare server, ${what}: ${P.warmup} warm-up + ${P.suiteRequests} requests at concurrency ${P.concurrency}`);
    const make = makeCreate({});
    out[name] = await createLoad(port, (i) => ({ ...make(i), path: `/v1/intent${query}` }), checkCreate, countIntents, { bare: bare.child.pid });
    log(`  ${fmtRun(out[name])}`);
  }
  await children.stop(bare);
  return out;
}

/** Creates `n` API keys of the bench tenant with the CLI, four at a time; resolves to the keys. */
export async function createKeys(baseEnv: Env, n: number): Promise<string[]> {
  const one = (i: number) =>
    new Promise((resolve, reject) => {
      const args = ['create', '--name', `bench-client-${i}`, '--tenant', 'bench', '--scopes', 'intents:read,intents:write'];
      const child = spawn(process.execPath, [join(ROOT, 'apps/gateway/dist/cli/apikey.js'), ...args], { cwd: ROOT, env: baseEnv });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      child.once('error', reject);
      child.once('exit', (code) => {
        const key = out.trim();
        if (code === 0 && /^ti_[A-Za-z0-9_-]{43}$/.test(key)) resolve(key);
        else reject(new Error(`apikey create ${i} failed (exit ${code}): ${out.slice(0, 300)}`));
      });
    });
  const keys: any[] = [];
  for (let i = 0; i < n; i += 4) keys.push(...(await Promise.all(Array.from({ length: Math.min(4, n - i) }, (_, k) => one(i + k)))));
  return keys;
}

/**
 * All four services as `npm start` runs them (scripts/start.mjs: `node --enable-source-maps`,
 * LOG_REQUESTS=true, NO_COLOR=1, the default log format), rate limits raised; P.concurrency
 * clients, each with its own API key. BENCH_CPU_PROF=<dir> adds --prof to the gateway and the
 * intent service (<dir>/<app>.v8.log; read with `node --prof-process`).
 */
export async function suiteCreate(
  baseEnv: Env,
  tenantId: string,
  makeCreate: MakeCreate,
  checkCreate: CheckCreate,
  countIntents: () => Promise<number>,
  db: pg.Pool,
) {
  step(`full suite: ${P.concurrency} API keys (apikey create --tenant bench), one per client`);
  const keys = await createKeys(baseEnv, P.concurrency);
  const port = await freePort();
  const suiteEnv = {
    ...withDefaults({ LOG_REQUESTS: 'true', ...process.env }),
    NO_COLOR: '1',
    PGDATABASE: baseEnv.PGDATABASE,
    NATS_URL: baseEnv.NATS_URL,
    HOST: '127.0.0.1',
    PORT: String(port),
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
  };
  const profileDir = process.env.BENCH_CPU_PROF || null;
  step(`starting the full suite (${SUITE_APPS.join(', ')}) with npm start's defaults`);
  const entries: any[] = [];
  const pids: Figures = {};
  for (const app of SUITE_APPS) {
    // V8's tick log (--prof), written as it runs: Nest re-raises SIGTERM, so --cpu-prof would never be written.
    const profile =
      profileDir && (app === 'gateway' || app === 'intent-service')
        ? ['--prof', '--no-logfile-per-isolate', `--logfile=${join(profileDir, `${app}.v8.log`)}`]
        : [];
    const entry = children.start(`suite-${app}`, process.execPath, ['--enable-source-maps', ...profile, join(ROOT, `apps/${app}/dist/main.js`)], {
      cwd: ROOT,
      env: suiteEnv,
      readyLine: /listening on/,
      readyTimeoutMs: 30_000,
    });
    await entry.ready;
    entries.push(entry);
    pids[app] = entry.child.pid;
  }
  await waitFor200(port, '/ready', { children, timeoutMs: 30_000, what: 'gateway /ready' });
  const natsPid = children.list.find((e) => e.name === 'nats-server')?.child.pid;
  if (natsPid) pids['nats-server'] = natsPid;
  step(`create load on the full suite: ${P.warmup} warm-up + ${P.suiteRequests} requests at concurrency ${P.concurrency}, one API key per client`);
  const perClient = keys.map((key) => makeCreate({ 'x-api-key': key }));
  const r = await createLoad(port, (i, w) => perClient[w](i), checkCreate, countIntents, pids);
  r.apiKeys = keys.length;
  // The outbox relay's backlog when the load stops, and how long it takes to catch up.
  const t0 = performance.now();
  const unpublished = async () => (await db.query('SELECT count(*)::int AS n FROM intent.outbox WHERE published_at IS NULL')).rows[0].n;
  r.outboxBacklogAtEnd = await unpublished();
  let left = r.outboxBacklogAtEnd;
  while (left > 0 && performance.now() - t0 < 30_000) {
    await sleep(100);
    left = await unpublished();
  }
  r.outboxDrainSeconds = left === 0 ? round((performance.now() - t0) / 1000, 2) : null;
  log(`  ${fmtRun(r)}; outbox backlog ${r.outboxBacklogAtEnd}, drained in ${r.outboxDrainSeconds ?? '>30'} s`);
  step('stopping the full suite');
  for (const entry of [...entries].reverse()) await children.stop(entry);
  // Whatever the relay left is not the later scenarios' to publish.
  await db.query('UPDATE intent.outbox SET published_at = now() WHERE published_at IS NULL');
  return r;
}
