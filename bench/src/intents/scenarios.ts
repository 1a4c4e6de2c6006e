// The scenarios in order (see main.ts).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { bootstrapDatabase } from '../../../infra/postgres/bootstrap.mjs';
import {
  BENCH_DIST,
  Figures,
  ROOT,
  Reply,
  RequestSpec,
  cpuMeter,
  envInt,
  parentPid,
  scopePostgres,
  fmtRun,
  log,
  logIssues,
  round,
  runLoad,
  sleep,
  waitFor200,
} from '../harness/index.js';
import { freePort } from '@tradeinfra/test-support';
import { P, SCENARIOS, TARGETS, TOKEN, children, env, phaseLimitMs, pool, run, runNode, startedAt, step } from './context.js';
import { machineInfo, seed, uuidFloor } from './seed.js';
import { fetchScenarios, planScenarios, searchScenarios, type ReadsSetup } from './reads.js';
import { bareCreate, ratioOf, suiteCreate } from './suite.js';
import { pick } from '../harness/index.js';

export async function main() {
  const results: Figures = { scenarios: {}, notes: [] };
  await run.dropLeftovers();

  step('starting NATS');
  const nats = await run.startNats();
  log(`  NATS ${nats.private ? `private nats-server at ${nats.url}` : `shared at ${nats.url}`}`);

  const dbName = `ti_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
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
  // CPU figures charge postgres only with this database's backends and the server's own processes.
  const postmaster = parentPid((await db.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  if (postmaster) scopePostgres(postmaster, dbName);

  // ---- create bodies: chain 1, lowercase wallet from a pool of 1000, fixed token, wei strings, expiry now+1h
  const createWallets = Array.from({ length: P.createWallets }, () => `0x${randomBytes(20).toString('hex')}`);
  const makeCreate =
    (headers: Record<string, string>) =>
    (i: number): RequestSpec => ({
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
  const checkCreate = (res: Reply, i: number) => {
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
  const baseline = children.start('baseline', process.execPath, [join(BENCH_DIST, 'intents', 'baseline-server.js')], {
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
    const makeBatch = (i: number): RequestSpec => ({
      method: 'POST',
      path: '/v1/intents',
      headers: auth,
      body: `[${Array.from({ length: P.batchSize }, (_, k) => single(i * P.batchSize + k).body).join(',')}]`,
    });
    const checkBatch = (res: Reply, i: number) => {
      if (i % 10 !== 0) return null;
      const body = JSON.parse(res.body);
      return Array.isArray(body) && body.length === P.batchSize && body.every((x) => x.status === 'pending')
        ? null
        : `unexpected body ${res.body.slice(0, 200)}`;
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
    r.intentsPerSec = round(r.reqPerSec! * P.batchSize, 0);
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
    log(
      `  ${fmtRun(r)}; ${r.intentsPerSec} intents/s = ${r.factorVsSingle}× single creates (${r.singleIntentsPerSec}/s); outbox backlog ${r.outboxBacklogAtEnd}, drained in ${r.outboxDrainSeconds ?? '>60'} s`,
    );
  }

  // ---- 3. seed
  step(`seeding ${P.seedRows.toLocaleString('en-US')} intents over ${P.seedWallets.toLocaleString('en-US')} wallets`);
  const seeded = await seed(db, tenantId);
  results.seed = seeded.figures;
  log(
    `  seeded in ${seeded.figures.insertSeconds} s (${seeded.figures.rowsPerSecond?.toLocaleString('en-US')} rows/s), VACUUM (ANALYZE) ${seeded.figures.vacuumAnalyzeSeconds} s`,
  );
  const seedIds = (
    await db.query(`SELECT id::text AS id FROM intent.intents WHERE tenant_id = $1 AND id < $2::uuid ORDER BY random() LIMIT 10000`, [
      tenantId,
      uuidFloor(startedAt.getTime()),
    ])
  ).rows.map((r) => r.id);

  const reads: ReadsSetup = {
    results,
    db,
    dbName,
    tenantId,
    wallets: seeded.wallets,
    seedIds,
    gatewayPort,
    baselinePort,
    auth,
    productPids,
    baselinePids: { baseline: baseline.child.pid },
  };
  await fetchScenarios(reads);
  const pages = await searchScenarios(reads);
  await planScenarios(reads, pages);

  // ---- wrap up
  const hold = envInt('BENCH_HOLD_SECONDS', 0, { min: 0, max: 3600 });
  if (hold > 0) {
    log(
      `holding the stack for ${hold} s (BENCH_HOLD_SECONDS): gateway http://127.0.0.1:${gatewayPort} (x-api-key ${key}), baseline http://127.0.0.1:${baselinePort}, database ${dbName}, NATS ${nats.url}`,
    );
    await sleep(hold * 1000);
  }
  step('stopping children');
  await children.stopAll();
  results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
  return { results, machine, nats };
}
