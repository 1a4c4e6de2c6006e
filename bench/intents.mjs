#!/usr/bin/env node
// Intent API benchmark: `npm run bench:intents` (which installs, builds and migrates first).
// Runs on its own database (ti_bench_<pid>_<random>, dropped at the end) and, when a
// nats-server binary is available, its own NATS server, so it never touches dev data and never
// shares the `intent-service` queue group with a running `npm start`.
//
//   0. create through the full suite as `npm start` runs it (four services, request logs on,
//      source maps, one API key per client) against a bare node:http + pg insert of the same row
//      (bench/bare-server.mjs), in the same run (target: at least 0.40); BENCH_SCENARIOS=suite
//      runs this step alone
//   1. baseline create load  (bench/baseline-server.mjs: Express + pg, the same SQL, nothing else)
//   2. gateway create load   (gateway → NATS → intent service → Postgres), with outbox drain time
//   2b. gateway batch create (POST /v1/intents, BENCH_BATCH_SIZE intents a request): intents/s
//       against the single creates of step 2, in the same run (target: at least 5×)
//   3. seed BENCH_SEED_ROWS intents in SQL, VACUUM (ANALYZE)
//   4. fetch by id, gateway and baseline, at concurrency 1 and BENCH_CONCURRENCY
//   5. search: 1 wallet, 10 wallets, the next page of a 10-wallet search, 1 wallet under load,
//      and the same 1- and 10-wallet queries straight on Postgres (the database's share)
//   6. EXPLAIN (ANALYZE, BUFFERS) of the repository's search (and fetch) SQL
// Prints a table on stdout and writes bench/results/intents.json. See bench/README.md.
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getAddress } from 'ethers';
import pg from 'pg';
import { bootstrapDatabase } from '../infra/postgres/bootstrap.mjs';
import { withDefaults } from '../scripts/lib.mjs';
import {
  BenchRun,
  captureRepositorySql,
  cpuMeter,
  envInt,
  freePort,
  hostInfo,
  loadIntentsRepository,
  log,
  logIssues,
  percentile,
  round,
  runLoad,
  runNodeScript,
  sleep,
  waitFor200,
} from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results', 'intents.json');

// ---------------------------------------------------------------- parameters

const P = {
  concurrency: envInt('BENCH_CONCURRENCY', 32, { max: 1024 }),
  createRequests: envInt('BENCH_CREATE_REQUESTS', 5000, { max: 1_000_000 }),
  warmup: envInt('BENCH_WARMUP', 2000, { min: 0, max: 100_000 }),
  readRequests: envInt('BENCH_READ_REQUESTS', 2000, { max: 1_000_000 }),
  seedRows: envInt('BENCH_SEED_ROWS', 1_000_000, { min: 1000, max: 20_000_000 }),
  seedWallets: envInt('BENCH_SEED_WALLETS', 20_000, { min: 10, max: 1_000_000 }),
  createWallets: 1000,
  suiteRequests: envInt('BENCH_SUITE_REQUESTS', 10_000, { max: 1_000_000 }),
  searchLimit: 100,
  batchSize: envInt('BENCH_BATCH_SIZE', 100, { max: 100 }),
  batchRequests: envInt('BENCH_BATCH_REQUESTS', 300, { max: 100_000 }),
  batchWarmup: envInt('BENCH_BATCH_WARMUP', 30, { min: 0, max: 10_000 }),
  batchConcurrency: envInt('BENCH_BATCH_CONCURRENCY', 8, { max: 256 }),
  phaseMaxSeconds: envInt('BENCH_PHASE_MAX_SECONDS', 60, { max: 3600 }),
  maxSeconds: envInt('BENCH_MAX_SECONDS', 600, { max: 24 * 3600 }),
};
const TARGETS = { gatewayVsBaselinePct: 40, searchP99Ms: 10, batchVsSingleFactor: 5, suiteVsBare: 0.4 };
/** BENCH_SCENARIOS=suite runs only step 0 (the full suite against the bare server); default: all. */
const SCENARIOS = (() => {
  const raw = process.env.BENCH_SCENARIOS || 'all';
  if (raw !== 'all' && raw !== 'suite') throw new Error(`BENCH_SCENARIOS must be all or suite (got ${JSON.stringify(raw)})`);
  return { all: raw === 'all' };
})();
/** The four services in scripts/start.mjs's order. */
const SUITE_APPS = ['intent-service', 'simulation-service', 'payout-service', 'gateway'];
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
/** Seeded statuses, cumulative % (the rest is `error`). */
const SEED_MIX = [
  ['pending', 70],
  ['completed', 85],
  ['expired', 95],
  ['cancelled', 98],
  ['failed', 99],
];

const env = withDefaults(process.env);
const startedAt = new Date();
const run = new BenchRun({ name: 'intents', env, maxSeconds: P.maxSeconds, applicationName: 'bench' });
const { tmp, children } = run;
let dbName = null;

// ---------------------------------------------------------------- small helpers

const pool = (database, max) => run.pool(database, max);
const runNode = (script, args, childEnv) => runNodeScript(ROOT, script, args, childEnv);
const step = (title) => run.step(title);





function phaseLimitMs() {
  return P.phaseMaxSeconds * 1000;
}

function pick(array) {
  return array[randomInt(array.length)];
}

function pickDistinct(array, n) {
  const chosen = new Set();
  while (chosen.size < n) chosen.add(pick(array));
  return [...chosen];
}



// ---------------------------------------------------------------- NATS


// ---------------------------------------------------------------- full suite vs bare

/** `a.reqPerSec / b.reqPerSec`, 2 decimals (null when b did nothing). */
function ratioOf(a, b) {
  return b.reqPerSec > 0 ? round(a.reqPerSec / b.reqPerSec, 2) : null;
}

/** A create load of P.warmup + P.suiteRequests requests at P.concurrency; rows counted. */
async function createLoad(port, make, checkCreate, countIntents, pids) {
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
function cpuMsPerRequest(r) {
  const out = {};
  let total = 0;
  for (const [name, pct] of Object.entries(r.cpuPercentOfOneCore)) {
    if (name === 'machine' || name === 'bench (load generator)' || typeof pct !== 'number') continue;
    out[name] = round((pct / 100) * (1000 / r.reqPerSec), 3);
    total += out[name];
  }
  out.total = round(total, 3);
  return out;
}

/** The bare node:http + pg server (bench/bare-server.mjs): the same insert, nothing else. */
async function bareCreate(baseEnv, tenantId, makeCreate, checkCreate, countIntents) {
  step('starting the bare node:http + pg server');
  const port = await freePort();
  const bare = children.start('bare', process.execPath, [join(ROOT, 'bench', 'bare-server.mjs')], {
    cwd: ROOT,
    env: { ...baseEnv, PORT: String(port), BENCH_TENANT_ID: tenantId },
    readyLine: /bare listening/,
  });
  await bare.ready;
  await waitFor200(port, '/health', { children, what: 'bare /health' });
  const out = {};
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
async function createKeys(baseEnv, n) {
  const one = (i) =>
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
  const keys = [];
  for (let i = 0; i < n; i += 4) keys.push(...(await Promise.all(Array.from({ length: Math.min(4, n - i) }, (_, k) => one(i + k)))));
  return keys;
}

/**
 * All four services as `npm start` runs them (scripts/start.mjs: `node --enable-source-maps`,
 * LOG_REQUESTS=true, NO_COLOR=1, the default log format), rate limits raised; P.concurrency
 * clients, each with its own API key. BENCH_CPU_PROF=<dir> adds --prof to the gateway and the
 * intent service (<dir>/<app>.v8.log; read with `node --prof-process`).
 */
async function suiteCreate(baseEnv, tenantId, makeCreate, checkCreate, countIntents, db) {
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
  const entries = [];
  const pids = {};
  for (const app of SUITE_APPS) {
    // V8's tick log (--prof), written as it runs: Nest re-raises SIGTERM, so --cpu-prof would never be written.
    const profile = profileDir && (app === 'gateway' || app === 'intent-service') ? ['--prof', '--no-logfile-per-isolate', `--logfile=${join(profileDir, `${app}.v8.log`)}`] : [];
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

// ---------------------------------------------------------------- seeding

const SEED_SQL = `
INSERT INTO intent.intents AS x (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount,
  expires_at, max_slippage_bps, tx_hash, executed_at, status_reason, created_at, updated_at)
SELECT
  (lpad(to_hex(a.ms), 12, '0') || '7' || substr(a.h, 1, 3) || '8' || substr(a.h, 4, 15))::uuid,
  $3::uuid,
  t.status,
  1,
  ($4::text[])[1 + (g % $8::int)::int],
  $7::text,
  (1000000000000000 + g)::numeric,
  (100000000000000000 + g * 1000)::numeric,
  CASE WHEN t.status = 'pending' THEN now() + make_interval(hours => 1 + (g % 700)::int) ELSE t.created + interval '1 hour' END,
  CASE WHEN g % 3 = 0 THEN 50 END,
  CASE WHEN t.status = 'completed' THEN '0x' || a.h || md5(a.h) END,
  CASE WHEN t.status = 'completed' THEN t.created + interval '12 seconds' END,
  CASE t.status WHEN 'expired' THEN 'expiry reached before launch' WHEN 'cancelled' THEN 'cancelled by the client'
                WHEN 'failed' THEN 'launch reverted' WHEN 'error' THEN 'seeded error' END,
  t.created,
  t.created
FROM generate_series($1::bigint, $2::bigint) AS g
CROSS JOIN LATERAL (SELECT md5(g::text) AS h, $5::bigint + g * $6::bigint AS ms) a
CROSS JOIN LATERAL (
  SELECT to_timestamp(a.ms / 1000.0) AS created,
         CASE ${SEED_MIX.map(([s, upTo]) => `WHEN b.n < ${upTo} THEN '${s}'`).join(' ')} ELSE 'error' END AS status
  FROM (SELECT ('x' || substr(a.h, 20, 4))::bit(16)::int % 100 AS n) b
) t`;

async function seed(db, tenantId) {
  const wallets = Array.from({ length: P.seedWallets }, () => getAddress(`0x${randomBytes(20).toString('hex')}`));
  // Seeded ids (and created_at) run from 30 days before the bench started to 1 minute before it,
  // one every `stepMs`: time-ordered UUIDv7 (48-bit ms timestamp, version 7, variant 10).
  const endMs = startedAt.getTime() - 60_000;
  const spanMs = 30 * 24 * 3600 * 1000;
  const stepMs = Math.max(1, Math.floor(spanMs / P.seedRows));
  const startMs = endMs - stepMs * P.seedRows;
  const batch = 100_000;
  const t0 = performance.now();
  for (let from = 0; from < P.seedRows; from += batch) {
    if (run.aborting) throw new Error('aborted');
    const to = Math.min(P.seedRows, from + batch) - 1;
    await db.query(SEED_SQL, [from, to, tenantId, wallets, startMs, stepMs, TOKEN, wallets.length]);
    log(`  seeded ${(to + 1).toLocaleString('en-US')} / ${P.seedRows.toLocaleString('en-US')} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  const insertSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  // VACUUM too (not only ANALYZE): sets hint bits and the visibility map now, so neither the
  // first readers nor an autovacuum triggered by the bulk insert run during the measurements.
  await db.query('VACUUM (ANALYZE) intent.intents');
  const analyzeSeconds = (performance.now() - t1) / 1000;
  const { rows } = await db.query(
    `SELECT status, count(*)::int AS n FROM intent.intents WHERE tenant_id = $1 GROUP BY status ORDER BY n DESC`,
    [tenantId],
  );
  const sizes = await db.query(
    `SELECT pg_size_pretty(pg_table_size('intent.intents')) AS heap,
            pg_size_pretty(pg_relation_size('intent.intents_search_idx')) AS search_idx,
            pg_size_pretty(pg_indexes_size('intent.intents')) AS all_indexes`,
  );
  return {
    wallets,
    figures: {
      rows: P.seedRows,
      wallets: wallets.length,
      insertSeconds: round(insertSeconds, 1),
      vacuumAnalyzeSeconds: round(analyzeSeconds, 1),
      rowsPerSecond: round(P.seedRows / insertSeconds, 0),
      tenantRowsByStatus: Object.fromEntries(rows.map((r) => [r.status, r.n])),
      sizes: sizes.rows[0],
    },
  };
}

// ---------------------------------------------------------------- plans

/** What the search SQL returns (one row, the page as JSON text), for capturing that SQL. */
const SEARCH_ROWS = [{ intents: '[]', more_after: null }];

/** EXPLAIN (ANALYZE, BUFFERS) of exactly what `call(repository)` sends, run as the superuser. */
async function explain(db, IntentsRepository, call) {
  const { sql, params } = await captureRepositorySql(IntentsRepository, call, { rows: SEARCH_ROWS });
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  const text = rows.map((r) => r['QUERY PLAN']).join('\n');
  const exec = /Execution Time: ([\d.]+) ms/.exec(text);
  return {
    sql,
    params,
    usesSearchIndex: /intents_search_idx/.test(text),
    executionMs: exec ? Number(exec[1]) : null,
    plan: text,
  };
}

// ---------------------------------------------------------------- main

async function main() {
  const results = { scenarios: {}, notes: [] };
  await run.dropLeftovers();

  step('starting NATS');
  const nats = await run.startNats();
  log(`  NATS ${nats.private ? `private nats-server at ${nats.url}` : `shared at ${nats.url}`}`);

  dbName = `ti_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  step(`creating database ${dbName}`);
  run.useDatabase(dbName); // from here on, cleanup drops it (IF EXISTS)
  await bootstrapDatabase({ env, database: dbName });
  const baseEnv = { ...env, PGDATABASE: dbName, NATS_URL: nats.url, LOG_FORMAT: 'json', NO_COLOR: '1' };
  for (const app of ['intent-service', 'gateway', 'payout-service']) {
    const out = runNode(`apps/${app}/dist/database/migrate.js`, [], baseEnv);
    log(`  ${out.trim()}`);
  }
  const key = runNode('apps/gateway/dist/cli/apikey.js', ['create', '--name', 'bench', '--scopes', 'intents:read,intents:write'], baseEnv).trim();
  if (!/^ti_[A-Za-z0-9_-]{43}$/.test(key)) throw new Error(`apikey create printed something unexpected: ${key.slice(0, 80)}`);
  const db = pool(dbName, 3);
  const tenantId = (await db.query(`SELECT tenant_id FROM gateway.api_keys WHERE name = 'bench'`)).rows[0].tenant_id;
  log(`  API key ${key.slice(0, 10)}… for tenant ${tenantId}`);

  const machine = await machineInfo(db, nats);

  // ---- create bodies: chain 1, lowercase wallet from a pool of 1000, fixed token, wei strings, expiry now+1h
  const createWallets = Array.from({ length: P.createWallets }, () => `0x${randomBytes(20).toString('hex')}`);
  const makeCreate = (headers) => (i) => ({
    method: 'POST',
    path: '/v1/intent',
    headers,
    body: JSON.stringify({
      chainId: 1,
      wallet: pick(createWallets),
      tokenAddress: TOKEN,
      bribe: '1000000000000000',
      buyAmount: (100000000000000000n + BigInt(i)).toString(),
      expiry: Math.floor(Date.now() / 1000) + 3600,
    }),
  });
  const checkCreate = (res, i) => {
    if (i % 50 !== 0) return null;
    const body = JSON.parse(res.body);
    return body && typeof body.id === 'string' && body.status === 'pending' ? null : `unexpected body ${res.body.slice(0, 200)}`;
  };
  const countIntents = async () => (await db.query('SELECT count(*)::int AS n FROM intent.intents')).rows[0].n;

  // ---- 0. create through the full suite as `npm start` runs it, against a bare node:http + pg server
  const bare = await bareCreate(baseEnv, tenantId, makeCreate, checkCreate, countIntents);
  results.scenarios.createBare = bare.row;
  results.scenarios.createBareWithOutbox = bare.withOutbox;
  // Its outbox rows are nobody's to relay: marked done before any intent service starts.
  await db.query('UPDATE intent.outbox SET published_at = now() WHERE published_at IS NULL');
  results.scenarios.createSuite = await suiteCreate(baseEnv, tenantId, makeCreate, checkCreate, countIntents, db);
  results.scenarios.createSuite.vsBare = ratioOf(results.scenarios.createSuite, bare.row);
  results.scenarios.createSuite.vsBareWithOutbox = ratioOf(results.scenarios.createSuite, bare.withOutbox);
  log(`  full suite = ${results.scenarios.createSuite.vsBare} of bare (target >= ${TARGETS.suiteVsBare})`);
  if (!SCENARIOS.all) {
    step('stopping children');
    await children.stopAll();
    results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
    return { results, machine, nats };
  }

  // ---- 1. baseline create (before the intent service runs: its outbox relay would otherwise
  //      publish the baseline's outbox rows to JetStream while the baseline is being measured)
  step('starting the baseline server');
  const baselinePort = await freePort();
  const baseline = children.start('baseline', process.execPath, [join(ROOT, 'bench', 'baseline-server.mjs')], {
    cwd: ROOT,
    env: { ...baseEnv, PORT: String(baselinePort), BENCH_TENANT_ID: tenantId },
    readyLine: /baseline listening/,
  });
  await baseline.ready;
  await waitFor200(baselinePort, '/health', { children, what: 'baseline /health' });

  step(`create load on the baseline: ${P.warmup} warm-up + ${P.createRequests} requests at concurrency ${P.concurrency}`);
  {
    const before = await countIntents();
    const meter = cpuMeter({ baseline: baseline.child.pid });
    const r = await runLoad({
      port: baselinePort,
      concurrency: P.concurrency,
      warmup: P.warmup,
      total: P.createRequests,
      maxMs: phaseLimitMs(),
      make: makeCreate({}),
      expect: 201,
      check: checkCreate,
    });
    r.cpuPercentOfOneCore = meter.stop();
    r.rowsInserted = (await countIntents()) - before;
    r.rowsExpected = r.completed + P.warmup;
    results.scenarios.createBaseline = r;
    log(`  ${fmtRun(r)}`);
  }
  // The baseline wrote outbox rows as the real create does; nobody relays them: mark them done
  // so the intent service's relay does not publish them during the gateway measurements.
  await db.query('UPDATE intent.outbox SET published_at = now() WHERE published_at IS NULL');

  // ---- 2. the product
  step('starting the intent service and the gateway');
  const gatewayPort = await freePort();
  const productEnv = {
    ...baseEnv,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    HOST: '127.0.0.1',
  };
  const service = children.start('intent-service', process.execPath, [join(ROOT, 'apps/intent-service/dist/main.js')], {
    cwd: ROOT,
    env: productEnv,
    readyLine: /listening on/,
    readyTimeoutMs: 30_000,
  });
  await service.ready;
  // The whole product runs, as in production; these two stay idle during the bench.
  for (const other of ['simulation-service', 'payout-service']) {
    await children.start(other, process.execPath, [join(ROOT, `apps/${other}/dist/main.js`)], {
      cwd: ROOT,
      env: productEnv,
      readyLine: /listening on/,
      readyTimeoutMs: 30_000,
    }).ready;
  }
  const gateway = children.start('gateway', process.execPath, [join(ROOT, 'apps/gateway/dist/main.js')], {
    cwd: ROOT,
    env: { ...productEnv, PORT: String(gatewayPort) },
    readyLine: /listening on/,
    readyTimeoutMs: 30_000,
  });
  await gateway.ready;
  await waitFor200(gatewayPort, '/ready', { children, timeoutMs: 30_000, what: 'gateway /ready' });
  const auth = { 'x-api-key': key };
  const productPids = { gateway: gateway.child.pid, 'intent-service': service.child.pid, ...(nats.pid ? { 'nats-server': nats.pid } : {}) };

  step(`create load on the gateway: ${P.warmup} warm-up + ${P.createRequests} requests at concurrency ${P.concurrency}`);
  {
    const before = await countIntents();
    const meter = cpuMeter(productPids);
    const r = await runLoad({
      port: gatewayPort,
      concurrency: P.concurrency,
      warmup: P.warmup,
      total: P.createRequests,
      maxMs: phaseLimitMs(),
      make: makeCreate(auth),
      expect: 201,
      check: checkCreate,
    });
    r.cpuPercentOfOneCore = meter.stop();
    r.rowsInserted = (await countIntents()) - before;
    r.rowsExpected = r.completed + P.warmup;
    // How far the outbox relay is behind when the load stops, and how long it takes to catch up.
    const t0 = performance.now();
    const unpublished = async () => (await db.query('SELECT count(*)::int AS n FROM intent.outbox WHERE published_at IS NULL')).rows[0].n;
    r.outboxBacklogAtEnd = await unpublished();
    let left = r.outboxBacklogAtEnd;
    while (left > 0 && performance.now() - t0 < 30_000) {
      await sleep(100);
      left = await unpublished();
    }
    r.outboxDrainSeconds = left === 0 ? round((performance.now() - t0) / 1000, 2) : null;
    r.outboxLeftAfter30s = left;
    results.scenarios.createGateway = r;
    log(`  ${fmtRun(r)}; outbox backlog ${r.outboxBacklogAtEnd}, drained in ${r.outboxDrainSeconds ?? '>30'} s`);
  }

  // ---- 2b. batch create through the gateway: the same bodies, BENCH_BATCH_SIZE to a request
  step(
    `batch create load on the gateway: ${P.batchWarmup} warm-up + ${P.batchRequests} requests of ${P.batchSize} intents at concurrency ${P.batchConcurrency}`,
  );
  {
    const single = makeCreate(auth);
    const makeBatch = (i) => ({
      method: 'POST',
      path: '/v1/intents',
      headers: auth,
      body: `[${Array.from({ length: P.batchSize }, (_, k) => single(i * P.batchSize + k).body).join(',')}]`,
    });
    const checkBatch = (res, i) => {
      if (i % 10 !== 0) return null;
      const body = JSON.parse(res.body);
      return Array.isArray(body) && body.length === P.batchSize && body.every((x) => x.status === 'pending') ? null : `unexpected body ${res.body.slice(0, 200)}`;
    };
    const before = await countIntents();
    const meter = cpuMeter(productPids);
    const r = await runLoad({
      port: gatewayPort,
      concurrency: P.batchConcurrency,
      warmup: P.batchWarmup,
      total: P.batchRequests,
      maxMs: phaseLimitMs(),
      make: makeBatch,
      expect: 201,
      check: checkBatch,
    });
    r.cpuPercentOfOneCore = meter.stop();
    r.batchSize = P.batchSize;
    r.intentsPerSec = round(r.reqPerSec * P.batchSize, 0);
    r.rowsInserted = (await countIntents()) - before;
    // fmtRows subtracts one row per failed request; a failed batch stores none of its rows.
    r.rowsExpected = (r.completed + P.batchWarmup) * P.batchSize - r.errors * (P.batchSize - 1);
    r.singleIntentsPerSec = results.scenarios.createGateway.reqPerSec;
    r.factorVsSingle = r.singleIntentsPerSec > 0 ? round(r.intentsPerSec / r.singleIntentsPerSec, 1) : null;
    const t0 = performance.now();
    const unpublished = async () => (await db.query('SELECT count(*)::int AS n FROM intent.outbox WHERE published_at IS NULL')).rows[0].n;
    r.outboxBacklogAtEnd = await unpublished();
    let left = r.outboxBacklogAtEnd;
    while (left > 0 && performance.now() - t0 < 60_000) {
      await sleep(100);
      left = await unpublished();
    }
    r.outboxDrainSeconds = left === 0 ? round((performance.now() - t0) / 1000, 2) : null;
    results.scenarios.createGatewayBatch = r;
    log(`  ${fmtRun(r)}; ${r.intentsPerSec} intents/s = ${r.factorVsSingle}× single creates (${r.singleIntentsPerSec}/s); outbox backlog ${r.outboxBacklogAtEnd}, drained in ${r.outboxDrainSeconds ?? '>60'} s`);
  }

  // ---- 3. seed
  step(`seeding ${P.seedRows.toLocaleString('en-US')} intents over ${P.seedWallets.toLocaleString('en-US')} wallets`);
  const seeded = await seed(db, tenantId);
  results.seed = seeded.figures;
  log(`  seeded in ${seeded.figures.insertSeconds} s (${seeded.figures.rowsPerSecond.toLocaleString('en-US')} rows/s), VACUUM (ANALYZE) ${seeded.figures.vacuumAnalyzeSeconds} s`);
  const seedIds = (
    await db.query(
      `SELECT id::text AS id FROM intent.intents WHERE tenant_id = $1 AND id < $2::uuid ORDER BY random() LIMIT 10000`,
      [tenantId, uuidFloor(startedAt.getTime())],
    )
  ).rows.map((r) => r.id);

  // ---- 4. fetch
  const makeFetch = (headers) => () => ({ method: 'GET', path: `/v1/intent/${pick(seedIds)}`, headers });
  const checkFetch = (res, i) => {
    if (i % 20 !== 0) return null;
    const body = JSON.parse(res.body);
    return body && typeof body.id === 'string' && body.wallet ? null : `unexpected body ${res.body.slice(0, 200)}`;
  };
  const readRun = async (label, port, make, { concurrency, expect = 200, check = null, onSample = null, pids = null }) => {
    step(`${label}: ${P.readRequests} requests at concurrency ${concurrency}`);
    const meter = pids ? cpuMeter(pids) : null;
    const r = await runLoad({
      port,
      concurrency,
      warmup: Math.min(P.warmup, 200),
      total: P.readRequests,
      maxMs: phaseLimitMs(),
      make,
      expect,
      check,
      onSample,
    });
    if (meter) r.cpuPercentOfOneCore = meter.stop();
    log(`  ${fmtRun(r)}`);
    return r;
  };
  results.scenarios.fetchGatewayC1 = await readRun('fetch via the gateway', gatewayPort, makeFetch(auth), { concurrency: 1, check: checkFetch });
  results.scenarios.fetchGatewayCN = await readRun('fetch via the gateway', gatewayPort, makeFetch(auth), {
    concurrency: P.concurrency,
    check: checkFetch,
    pids: productPids,
  });
  results.scenarios.fetchBaselineC1 = await readRun('fetch via the baseline', baselinePort, makeFetch({}), { concurrency: 1, check: checkFetch });
  results.scenarios.fetchBaselineCN = await readRun('fetch via the baseline', baselinePort, makeFetch({}), {
    concurrency: P.concurrency,
    check: checkFetch,
    pids: { baseline: baseline.child.pid },
  });

  // ---- 5. search (addresses sent in lowercase: the service normalises them to EIP-55)
  const searchBody = (wallets, cursor = null) =>
    JSON.stringify({ addresses: wallets.map((w) => w.toLowerCase()), limit: P.searchLimit, ...(cursor ? { cursor } : {}) });
  const rowsSeen = [];
  const checkSearch = (res) => {
    const body = JSON.parse(res.body);
    if (!Array.isArray(body)) return `not an array: ${res.body.slice(0, 200)}`;
    rowsSeen.push(body.length);
    for (let k = 1; k < body.length; k++) if (!(body[k - 1].id > body[k].id)) return 'results not newest-first';
    if (body.some((x) => x.status !== 'pending')) return 'a non-pending intent in a default-status search';
    return null;
  };
  const summarizeRows = (r) => {
    r.rowsPerAnswer = { mean: round(rowsSeen.reduce((a, b) => a + b, 0) / Math.max(1, rowsSeen.length), 1), min: Math.min(...rowsSeen), max: Math.max(...rowsSeen) };
    rowsSeen.length = 0;
    return r;
  };

  const searchMake = (n) => () => ({ method: 'POST', path: '/v1/intents/search', headers: auth, body: searchBody(pickDistinct(seeded.wallets, n)) });
  results.scenarios.search1 = summarizeRows(await readRun('search, 1 wallet, via the gateway', gatewayPort, searchMake(1), { concurrency: 1, check: checkSearch }));

  // 10 wallets: remember each measured request's wallets and x-next-cursor for the page-2 run.
  const pages = [];
  const tenWallets = [];
  results.scenarios.search10 = summarizeRows(
    await readRun(
      'search, 10 wallets, via the gateway',
      gatewayPort,
      (i) => {
        const wallets = pickDistinct(seeded.wallets, 10);
        tenWallets[i] = wallets;
        return { method: 'POST', path: '/v1/intents/search', headers: auth, body: searchBody(wallets) };
      },
      {
        concurrency: 1,
        check: checkSearch,
        onSample: (res, i) => {
          const cursor = res.headers['x-next-cursor'];
          if (cursor && tenWallets[i]) {
            const body = JSON.parse(res.body);
            pages.push({ wallets: tenWallets[i], cursor, lastId: body[body.length - 1].id });
          }
        },
      },
    ),
  );
  results.scenarios.search10.answersWithNextCursor = pages.length;
  if (pages.length === 0) {
    log('  WARNING: no 10-wallet search answered with x-next-cursor (too few seeded rows?): next-page run skipped');
  } else results.scenarios.search10Page2 = summarizeRows(
    await readRun(
      'search, 10 wallets, next page (x-next-cursor), via the gateway',
      gatewayPort,
      (i) => ({ method: 'POST', path: '/v1/intents/search', headers: auth, body: searchBody(pages[i % pages.length].wallets, pages[i % pages.length].cursor) }),
      {
        concurrency: 1,
        check: (res, i) => {
          const wrong = checkSearch(res);
          if (wrong) return wrong;
          const body = JSON.parse(res.body);
          return body.length > 0 && !(body[0].id < pages[i % pages.length].lastId) ? 'next page overlaps the first' : null;
        },
      },
    ),
  );
  results.scenarios.search1CN = summarizeRows(
    await readRun('search, 1 wallet, via the gateway', gatewayPort, searchMake(1), { concurrency: P.concurrency, check: checkSearch, pids: productPids }),
  );

  // The same searches straight on Postgres (superuser, one connection, the repository's SQL):
  // the database's share of the gateway's search latency.
  const sqlPool = pool(dbName, 1);
  const sqlSearch = (n) => (repo) => repo.search({ tenantId, wallets: pickDistinct(seeded.wallets, n), statuses: ['pending'], beforeId: null, limit: P.searchLimit + 1 });
  const IntentsRepository = await loadIntentsRepository(ROOT);
  results.scenarios.search1Sql = await sqlRun('search, 1 wallet, SQL only', sqlPool, IntentsRepository, sqlSearch(1));
  results.scenarios.search10Sql = await sqlRun('search, 10 wallets, SQL only', sqlPool, IntentsRepository, sqlSearch(10));

  // ---- 6. plans, as the superuser, with the parameters the service passes (limit + 1)
  step('EXPLAIN (ANALYZE, BUFFERS) of the search and fetch SQL');
  const w1 = pickDistinct(seeded.wallets, 1);
  const w10 = pickDistinct(seeded.wallets, 10);
  const page = pages[0];
  // The query IntentsService.search sends for a default-status request: limit + 1 rows.
  const search = (wallets, beforeId) => (repo) =>
    repo.search({ tenantId, wallets, statuses: ['pending'], beforeId, limit: P.searchLimit + 1 });
  results.plans = {
    search1Wallet: await explain(db, IntentsRepository, search(w1, null)),
    search10Wallets: await explain(db, IntentsRepository, search(w10, null)),
    ...(page ? { search10WalletsNextPage: await explain(db, IntentsRepository, search(page.wallets, page.lastId)) } : {}),
    fetchById: await explain(db, IntentsRepository, (repo) => repo.findById(tenantId, pick(seedIds))),
  };

  // ---- wrap up
  const hold = envInt('BENCH_HOLD_SECONDS', 0, { min: 0, max: 3600 });
  if (hold > 0) {
    log(`holding the stack for ${hold} s (BENCH_HOLD_SECONDS): gateway http://127.0.0.1:${gatewayPort} (x-api-key ${key}), baseline http://127.0.0.1:${baselinePort}, database ${dbName}, NATS ${nats.url}`);
    await sleep(hold * 1000);
  }
  step('stopping children');
  await children.stopAll();
  results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
  return { results, machine, nats };
}

const rowsSeenSql = [];

/** Runs `P.readRequests` repository queries one after another on `db`, timing each round trip. */
async function sqlRun(label, db, IntentsRepository, call) {
  step(`${label}: ${P.readRequests} queries at concurrency 1`);
  const run = async (n, latencies) => {
    let done = 0;
    let errors = 0;
    const errorSamples = [];
    const started = performance.now();
    const limit = started + phaseLimitMs();
    for (let i = 0; i < n && performance.now() < limit; i++) {
      const { sql, params } = await captureRepositorySql(IntentsRepository, call, { rows: SEARCH_ROWS });
      const t0 = performance.now();
      try {
        // The repository renders the page as one JSON text: count the intents in it.
        rowsSeenSql.push(JSON.parse((await db.query(sql, params)).rows[0].intents).length);
      } catch (err) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(err.message);
      }
      if (latencies) latencies[done] = performance.now() - t0;
      done++;
    }
    return { done, errors, errorSamples, elapsedMs: performance.now() - started };
  };
  await run(Math.min(P.warmup, 200), null);
  rowsSeenSql.length = 0;
  const latencies = new Float64Array(P.readRequests);
  const r = await run(P.readRequests, latencies);
  const sorted = latencies.subarray(0, r.done).sort();
  const out = {
    concurrency: 1,
    requested: P.readRequests,
    completed: r.done,
    seconds: round(r.elapsedMs / 1000, 3),
    reqPerSec: round(r.done / (r.elapsedMs / 1000), 1),
    p50Ms: round(percentile(sorted, 50), 2),
    p90Ms: round(percentile(sorted, 90), 2),
    p99Ms: round(percentile(sorted, 99), 2),
    maxMs: round(sorted[sorted.length - 1] ?? null, 2),
    errors: r.errors,
    errorsByKind: r.errors ? { sql: r.errors } : {},
    errorSamples: r.errorSamples,
    timeBoundHit: r.done < P.readRequests,
    rowsPerAnswer: rowsSeenSql.length ? { mean: round(rowsSeenSql.reduce((a, b) => a + b, 0) / rowsSeenSql.length, 1), min: Math.min(...rowsSeenSql), max: Math.max(...rowsSeenSql) } : null,
  };
  log(`  ${fmtRun(out)}`);
  return out;
}

/** The smallest UUIDv7 of a millisecond: every seeded id is below the bench's start. */
function uuidFloor(ms) {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

async function machineInfo(db, nats) {
  const q = async (sql) => (await db.query(sql)).rows[0];
  const settings = {};
  for (const name of ['shared_buffers', 'work_mem', 'max_connections', 'synchronous_commit', 'fsync', 'effective_cache_size', 'random_page_cost']) {
    settings[name] = (await q(`SELECT current_setting('${name}') AS v`)).v;
  }
  return {
    ...hostInfo(),
    postgres: (await q('SELECT version() AS v')).v,
    postgresSettings: settings,
    nats: { url: nats.url, private: nats.private, version: nats.version },
  };
}

// ---------------------------------------------------------------- report

function fmtRun(r) {
  const first = r.errors ? ` (${JSON.stringify(r.errorsByKind)}, e.g. ${r.errorSamples[0]})` : '';
  return `${r.completed} req in ${r.seconds} s = ${r.reqPerSec} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, max ${r.maxMs} ms, errors ${r.errors}${first}${r.timeBoundHit ? ' (TIME BOUND HIT)' : ''}`;
}

function table(rows, headers) {
  const cells = [headers, ...rows].map((r) => r.map((c) => (c === null || c === undefined ? '–' : String(c))));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const numeric = headers.map((_, i) => i > 1);
  const line = (r) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function report({ results, machine, nats }, totalSeconds) {
  const s = results.scenarios;
  const verdict = (ok) => (ok ? 'MET' : 'MISSED');
  const suiteVsBare = s.createSuite.vsBare;
  const suiteTargets = {
    suiteCreateVsBare: {
      ratio: suiteVsBare,
      suiteReqPerSec: s.createSuite.reqPerSec,
      bareReqPerSec: s.createBare.reqPerSec,
      target: `>= ${TARGETS.suiteVsBare}`,
      met: suiteVsBare !== null && suiteVsBare >= TARGETS.suiteVsBare,
    },
  };
  const suiteLines = [
    `full suite create (4 services, npm start's defaults, ${s.createSuite.apiKeys} API keys) = ${s.createSuite.reqPerSec}/s vs bare node:http + pg ${s.createBare.reqPerSec}/s = ${suiteVsBare} (target >= ${TARGETS.suiteVsBare}): ${verdict(suiteTargets.suiteCreateVsBare.met)}; rows suite ${fmtRows(s.createSuite)}, bare ${fmtRows(s.createBare)}, bare + outbox ${fmtRows(s.createBareWithOutbox)}; outbox drained in ${s.createSuite.outboxDrainSeconds ?? '> 30'} s`,
    `  (against the bare insert of the intent row and its outbox row, ${s.createBareWithOutbox.reqPerSec}/s: ${s.createSuite.vsBareWithOutbox})`,
    `CPU ms per create (load generator not counted): full suite ${fmtCpuMs(s.createSuite.cpuMsPerRequest)}; bare ${fmtCpuMs(s.createBare.cpuMsPerRequest)}; bare + outbox ${fmtCpuMs(s.createBareWithOutbox.cpuMsPerRequest)}`,
    `CPU during create, % of one core: full suite: ${fmtCpu(s.createSuite.cpuPercentOfOneCore)}`,
    `                                         bare: ${fmtCpu(s.createBare.cpuPercentOfOneCore)}`,
    `                             bare with outbox: ${fmtCpu(s.createBareWithOutbox.cpuPercentOfOneCore)}`,
  ];
  const suiteRows = [
    ['create  POST /v1/intent', 'full suite', s.createSuite],
    ['create  POST /v1/intent', 'bare http+pg', s.createBare],
    ['create  POST /v1/intent', 'bare + outbox', s.createBareWithOutbox],
  ];
  if (!SCENARIOS.all) return reportText({ results, machine, nats }, totalSeconds, suiteRows, suiteLines, suiteTargets);
  const ratio = s.createBaseline.reqPerSec > 0 ? round((s.createGateway.reqPerSec / s.createBaseline.reqPerSec) * 100, 1) : null;
  const targets = {
    ...suiteTargets,
    gatewayCreateVsBaseline: { percent: ratio, target: `>= ${TARGETS.gatewayVsBaselinePct}%`, met: ratio !== null && ratio >= TARGETS.gatewayVsBaselinePct },
    batchCreateVsSingle: {
      factor: s.createGatewayBatch.factorVsSingle,
      intentsPerSecBatch: s.createGatewayBatch.intentsPerSec,
      intentsPerSecSingle: s.createGatewayBatch.singleIntentsPerSec,
      target: `>= ${TARGETS.batchVsSingleFactor}x`,
      met: s.createGatewayBatch.factorVsSingle !== null && s.createGatewayBatch.factorVsSingle >= TARGETS.batchVsSingleFactor,
    },
    search1WalletP99: { ms: s.search1.p99Ms, target: `<= ${TARGETS.searchP99Ms} ms`, met: s.search1.p99Ms <= TARGETS.searchP99Ms },
    search10WalletsP99: { ms: s.search10.p99Ms, target: `<= ${TARGETS.searchP99Ms} ms`, met: s.search10.p99Ms <= TARGETS.searchP99Ms },
    searchUsesIndex: {
      oneWallet: results.plans.search1Wallet.usesSearchIndex,
      tenWallets: results.plans.search10Wallets.usesSearchIndex,
      met: results.plans.search1Wallet.usesSearchIndex && results.plans.search10Wallets.usesSearchIndex,
    },
  };
  const rows = [
    ...suiteRows,
    ['create  POST /v1/intent', 'gateway', s.createGateway],
    ['create  POST /v1/intent', 'baseline', s.createBaseline],
    [`batch   POST /v1/intents (${P.batchSize} a request)`, `>= ${TARGETS.batchVsSingleFactor}x single`, s.createGatewayBatch],
    ['fetch   GET /v1/intent/:id', 'gateway', s.fetchGatewayC1],
    ['fetch   GET /v1/intent/:id', 'gateway', s.fetchGatewayCN],
    ['fetch   GET /v1/intent/:id', 'baseline', s.fetchBaselineC1],
    ['fetch   GET /v1/intent/:id', 'baseline', s.fetchBaselineCN],
    ['search  1 wallet', 'gateway', s.search1],
    ['search  10 wallets', 'gateway', s.search10],
    ['search  10 wallets, next page', 'gateway', s.search10Page2],
    ['search  1 wallet', 'gateway', s.search1CN],
    ['search  1 wallet', 'SQL only', s.search1Sql],
    ['search  10 wallets', 'SQL only', s.search10Sql],
  ];
  const lines = [...suiteLines];
  lines.push(`gateway create throughput = ${ratio}% of baseline (target >= ${TARGETS.gatewayVsBaselinePct}%): ${verdict(targets.gatewayCreateVsBaseline.met)}`);
  lines.push(
    `batch create through the gateway: ${s.createGatewayBatch.intentsPerSec} intents/s (${s.createGatewayBatch.reqPerSec} req/s of ${P.batchSize}) vs single ${s.createGateway.reqPerSec} intents/s = ${s.createGatewayBatch.factorVsSingle}x (target >= ${TARGETS.batchVsSingleFactor}x): ${verdict(targets.batchCreateVsSingle.met)}; rows ${fmtRows(s.createGatewayBatch)}, outbox drained in ${s.createGatewayBatch.outboxDrainSeconds ?? '> 60'} s`,
  );
  lines.push(
    `search p99 on ${P.seedRows.toLocaleString('en-US')} rows: 1 wallet ${s.search1.p99Ms} ms, 10 wallets ${s.search10.p99Ms} ms (target <= ${TARGETS.searchP99Ms} ms): ${verdict(targets.search1WalletP99.met && targets.search10WalletsP99.met)}`,
  );
  lines.push(
    `search plan uses intents_search_idx: 1 wallet ${yes(results.plans.search1Wallet.usesSearchIndex)} (${results.plans.search1Wallet.executionMs} ms), 10 wallets ${yes(results.plans.search10Wallets.usesSearchIndex)} (${results.plans.search10Wallets.executionMs} ms), next page ${results.plans.search10WalletsNextPage ? `${yes(results.plans.search10WalletsNextPage.usesSearchIndex)} (${results.plans.search10WalletsNextPage.executionMs} ms)` : 'not run'}`,
  );
  lines.push(
    `seed: ${results.seed.rows.toLocaleString('en-US')} intents over ${results.seed.wallets.toLocaleString('en-US')} wallets in ${results.seed.insertSeconds} s (${results.seed.rowsPerSecond.toLocaleString('en-US')} rows/s) + VACUUM (ANALYZE) ${results.seed.vacuumAnalyzeSeconds} s; table ${results.seed.sizes.heap}, intents_search_idx ${results.seed.sizes.search_idx}`,
  );
  lines.push(
    `outbox after the gateway create load: ${s.createGateway.outboxBacklogAtEnd} unpublished, drained in ${s.createGateway.outboxDrainSeconds ?? '> 30'} s; rows inserted (warm-up + measured): gateway ${fmtRows(s.createGateway)}, baseline ${fmtRows(s.createBaseline)}`,
  );
  lines.push(`CPU during create, % of one core: gateway run: ${fmtCpu(s.createGateway.cpuPercentOfOneCore)}`);
  lines.push(`                                    baseline run: ${fmtCpu(s.createBaseline.cpuPercentOfOneCore)}`);
  return reportText({ results, machine, nats }, totalSeconds, rows, lines, targets);
}

/** The table of `rows` (scenarios not run are left out), then `findings`, the child logs, the failed requests and the total time. */
function reportText({ results, machine }, totalSeconds, rows, findings, targets) {
  const s = results.scenarios;
  const errors = Object.values(s).reduce((n, r) => n + r.errors, 0);
  const cells = rows.filter(([, , r]) => r).map(([name, target, r]) => [
    name,
    target,
    r.concurrency,
    r.completed,
    r.reqPerSec,
    r.p50Ms,
    r.p99Ms,
    r.maxMs,
    r.rowsPerAnswer ? r.rowsPerAnswer.mean : null,
    `${r.errors}${r.timeBoundHit ? ' (cut)' : ''}`,
  ]);
  const lines = [];
  lines.push('');
  lines.push(`Intent API benchmark — ${startedAt.toISOString()} — ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}`);
  lines.push(`${machine.postgres.split(' on ')[0]} (shared_buffers ${machine.postgresSettings.shared_buffers}); NATS ${machine.nats.private ? `private ${machine.nats.version ?? 'nats-server'}` : `shared ${machine.nats.url}`}`);
  lines.push('');
  lines.push(table(cells, ['scenario', 'target', 'conc', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'rows', 'errors']));
  lines.push('');
  lines.push(...findings);
  const issues = Object.entries(results.childLogs)
    .filter(([, v]) => v.warn + v.error > 0)
    .map(([k, v]) => `${k} ${v.error} error / ${v.warn} warn`);
  lines.push(`child logs: ${issues.length ? issues.join(', ') + ' (samples in the JSON)' : 'no warnings or errors'}`);
  if (errors > 0) {
    lines.push(`ERRORS: ${errors} failed requests:`);
    for (const [name, r] of Object.entries(s)) if (r.errors) lines.push(`  ${name}: ${JSON.stringify(r.errorsByKind)} e.g. ${r.errorSamples[0]}`);
  }
  lines.push(`total ${round(totalSeconds, 1)} s`);
  return { text: lines.join('\n'), targets, errors };
}

function yes(b) {
  return b ? 'yes' : 'NO';
}

function fmtCpu(cpu) {
  const { machine, ...procs } = cpu ?? {};
  const list = Object.entries(procs)
    .map(([k, v]) => `${k} ${v ?? '?'}`)
    .join(', ');
  return machine ? `${list}; whole box ${machine.busyPercentOfAllCores}% busy of ${machine.cores} cores` : list;
}

function fmtCpuMs(ms) {
  const { total, ...procs } = ms;
  const list = Object.entries(procs)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `${total} (${list})`;
}

function fmtRows(r) {
  const expected = r.rowsExpected - r.errors;
  return r.rowsInserted === expected ? `${r.rowsInserted}` : `${r.rowsInserted} (MISMATCH: expected ${expected})`;
}

// ---------------------------------------------------------------- run

const t0 = performance.now();
await run.complete(async () => {
  const out = await main();
  const totalSeconds = (performance.now() - t0) / 1000;
  const { text, targets, errors } = report(out, totalSeconds);
  const json = {
    benchmark: 'intents',
    startedAt: startedAt.toISOString(),
    totalSeconds: round(totalSeconds, 1),
    command: 'npm run bench:intents',
    machine: out.machine,
    parameters: {
      ...P,
      database: dbName,
      natsUrl: out.nats.url,
      privateNats: out.nats.private,
      gatewayEnv: { RATE_LIMIT_PER_SECOND: 1000000, RATE_LIMIT_BURST: 1000000, LOG_FORMAT: 'json', GATEWAY_DB_POOL_SIZE: env.GATEWAY_DB_POOL_SIZE ?? '10 (default)', REQUEST_TIMEOUT_MS: env.REQUEST_TIMEOUT_MS ?? '5000 (default)' },
      intentServiceEnv: { INTENT_DB_POOL_SIZE: env.INTENT_DB_POOL_SIZE ?? '20 (default)' },
      suite: {
        scenarios: SCENARIOS.all ? 'all' : 'suite',
        apps: SUITE_APPS,
        node: '--enable-source-maps',
        env: { LOG_REQUESTS: env.LOG_REQUESTS ?? 'true (npm start)', LOG_FORMAT: env.LOG_FORMAT ?? 'pretty (default)', NO_COLOR: 1, RATE_LIMIT_PER_SECOND: 1000000, RATE_LIMIT_BURST: 1000000 },
        apiKeys: `${P.concurrency}, one per client (apikey create --tenant bench)`,
        bare: 'bench/bare-server.mjs: node:http + pg, the intent row (and, bare + outbox, the repository create)',
      },
      baselinePoolSize: Number(env.BASELINE_POOL_SIZE || 20),
      createBody: { chainId: 1, wallet: `lowercase, random of ${P.createWallets}`, tokenAddress: TOKEN, bribe: '1000000000000000', buyAmount: '100000000000000000 + i', expiry: 'now + 3600 s' },
      search: { status: 'default (pending)', limit: P.searchLimit, addresses: 'lowercase, random seeded wallets' },
      seedStatusMix: Object.fromEntries(SEED_MIX.map(([st, upTo], i) => [st, `${upTo - (i ? SEED_MIX[i - 1][1] : 0)}%`]).concat([['error', `${100 - SEED_MIX.at(-1)[1]}%`]])),
    },
    targets,
    errors,
    scenarios: out.results.scenarios,
    seed: out.results.seed,
    plans: out.results.plans,
    childLogs: out.results.childLogs,
  };
  return { path: RESULTS, json, text, errors, targetsMet: Object.values(targets).every((t) => t.met) };
});
