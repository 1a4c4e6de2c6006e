// Ingestion and the scenarios in order (see main.ts).
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrapDatabase } from '../../../infra/postgres/bootstrap.mjs';
import {
  Figures,
  ROOT,
  Reply,
  cpuMeter,
  envInt,
  fmtRun,
  loadLedgerRepository,
  log,
  logIssues,
  pick,
  request,
  runLoad,
  sleep,
  waitFor200,
} from '../harness/index.js';
import { freePort } from '@tradeinfra/test-support';
import { ADMIN_TENANT, BENCH_SOURCE, P, TENANT, children, env, phaseLimitMs, pool, run, runNode, step } from './context.js';
import { machineInfo } from './report.js';
import { explain, meanOf, sampleHashes, seed, slowest, sqlRun, withOthers } from './seed.js';

import { closeNats, ingest } from './ingest.js';

// ---------------------------------------------------------------- main

export async function main() {
  const results: Figures = { scenarios: {} };
  await run.dropLeftovers();

  step('starting NATS');
  const nats = await run.startNats();
  log(`  NATS ${nats.private ? `private nats-server at ${nats.url}` : `shared at ${nats.url}`}`);

  const dbName = `ti_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  step(`creating database ${dbName}`);
  run.useDatabase(dbName); // from here on, cleanup drops it (IF EXISTS)
  await bootstrapDatabase({ env, database: dbName });
  const cleanEnv = Object.fromEntries(Object.entries<any>(env).filter(([k]) => !/^(RPC_URL|HARDFORK)_\d+$/.test(k)));
  const baseEnv = { ...cleanEnv, PGDATABASE: dbName, NATS_URL: nats.url, LOG_FORMAT: 'json', NO_COLOR: '1' };
  for (const app of ['gateway', 'intent-service', 'payout-service']) {
    const out = runNode(`apps/${app}/dist/database/migrate.js`, [], baseEnv);
    log(`  ${out.trim()}`);
  }
  const key = runNode('apps/gateway/dist/cli/apikey.js', ['create', '--name', TENANT, '--scopes', 'payouts:read'], baseEnv).trim();
  const adminKey = runNode('apps/gateway/dist/cli/apikey.js', ['create', '--name', ADMIN_TENANT, '--scopes', 'admin'], baseEnv).trim();
  for (const k of [key, adminKey]) if (!/^ti_[A-Za-z0-9_-]{43}$/.test(k)) throw new Error(`apikey create printed something unexpected: ${k.slice(0, 80)}`);
  const db = pool(dbName, 3);
  const tenantOf = async (name: any) => (await db.query(`SELECT id FROM gateway.tenants WHERE name = $1`, [name])).rows[0].id;
  const tenantId = await tenantOf(TENANT);
  const adminTenantId = await tenantOf(ADMIN_TENANT);
  log(`  API keys: ${key.slice(0, 10)}… (payouts:read) for tenant ${TENANT} ${tenantId}; ${adminKey.slice(0, 10)}… (admin)`);
  const machine = await machineInfo(db, nats);

  // ---- 1. the product (started before the seed, so a start-up problem shows in seconds, not minutes)
  step('starting the intent, simulation and payout services and the gateway');
  const gatewayPort = await freePort();
  const productEnv = { ...baseEnv, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', HOST: '127.0.0.1' };
  const start = (name: string, app: string, extra: Record<string, string> = {}) =>
    children.start(name, process.execPath, [join(ROOT, `apps/${app}/dist/main.js`)], {
      cwd: ROOT,
      env: { ...productEnv, ...extra },
      readyLine: /listening on/,
      readyTimeoutMs: 60_000,
    });
  // The intent and simulation services are only here for the gateway's /ready. One that exits
  // during start-up is started again (twice at most); every failed start is reported.
  results.startFailures = [];
  const startOther = async (app: any) => {
    for (let attempt = 1; ; attempt++) {
      const entry = start(attempt === 1 ? app : `${app}-attempt${attempt}`, app);
      try {
        await entry.ready;
        return entry;
      } catch (err) {
        if (entry.exited === null || attempt === 3) throw err;
        entry.expectedExit = true;
        const fatal =
          readFileSync(entry.logPath, 'utf8')
            .split('\n')
            .filter((l) => /"level":"(fatal|error)"/.test(l))
            .pop() ?? '';
        const reason = /"message":"([^"]*)"/.exec(fatal)?.[1] ?? `exit ${entry.exited}`;
        results.startFailures.push({ app, attempt, exit: entry.exited, reason });
        log(`  WARNING: ${app} exited during start-up (attempt ${attempt}: ${reason}); starting it again`);
      }
    }
  };
  const payoutEntry = start('payout-service', 'payout-service');
  await Promise.all([startOther('intent-service'), startOther('simulation-service'), payoutEntry.ready]);
  const gateway = start('gateway', 'gateway', { PORT: String(gatewayPort) });
  await gateway.ready;
  await waitFor200(gatewayPort, '/ready', { children, timeoutMs: 30_000, what: 'gateway /ready' });

  step(`registering source ${BENCH_SOURCE} to tenant ${TENANT} (POST /v1/sources, admin key)`);
  {
    const agent = new http.Agent({ keepAlive: false });
    const res = await request(agent, gatewayPort, {
      method: 'POST',
      path: '/v1/sources',
      headers: { 'x-api-key': adminKey },
      body: JSON.stringify({ id: BENCH_SOURCE, tenant: TENANT }),
    });
    if (res.status !== 201) throw new Error(`POST /v1/sources answered ${res.status}: ${res.body.slice(0, 300)}`);
    const owner = (await db.query('SELECT tenant_id FROM payout.sources WHERE id = $1', [BENCH_SOURCE])).rows[0]?.tenant_id;
    if (owner !== tenantId) throw new Error(`source ${BENCH_SOURCE} is registered to ${owner}, not ${tenantId}`);
  }

  // ---- 2. seed
  step(`seeding ${P.rows.toLocaleString('en-US')} entries in chunks of ${P.seedChunk.toLocaleString('en-US')} (indexes: ${P.seedIndexes})`);
  results.seed = await seed(db, adminTenantId);
  log(
    `  seeded in ${results.seed.totalSeconds} s: insert ${results.seed.insertSeconds} s, index rebuild ${results.seed.indexRebuildSeconds} s, VACUUM (ANALYZE) ${results.seed.vacuumAnalyzeSeconds} s, CHECKPOINT ${results.seed.checkpointSeconds} s; table ${results.seed.sizes.heap}, indexes ${results.seed.sizes.all_indexes}`,
  );
  const hashes = await sampleHashes(db);
  log(`  sampled ${hashes.mine.length.toLocaleString('en-US')} hashes of the bench source, ${hashes.others.length.toLocaleString('en-US')} of others`);

  // ---- 3. by-tx reads
  const auth = { 'x-api-key': key };
  const productPids = {
    gateway: gateway.child.pid,
    'payout-service': payoutEntry.child.pid,
    ...(nats.pid ? { 'nats-server': nats.pid } : {}),
  };
  // Answers are checked: the tenant's hashes give a non-empty array of that hash's entries, all
  // of the bench source; unknown and other tenants' hashes give exactly `[]`.
  const rowsSeen: any[] = [];
  const answerMine = (res: Reply, hash: string) => {
    let body;
    try {
      body = JSON.parse(res.body);
    } catch {
      return `not JSON: ${res.body.slice(0, 200)}`;
    }
    if (!Array.isArray(body)) return `not an array: ${res.body.slice(0, 200)}`;
    rowsSeen.push(body.length);
    if (body.length === 0) return `no entries for ${hash}`;
    for (const e of body)
      if (e.reference !== hash || e.sourceId !== BENCH_SOURCE || e.status !== 'PENDING') return `unexpected entry ${JSON.stringify(e).slice(0, 300)}`;
    return null;
  };
  const answerEmpty = (res: Reply) => {
    rowsSeen.push(res.body === '[]' ? 0 : 1);
    return res.body === '[]' ? null : `expected [], got ${res.body.slice(0, 200)}`;
  };
  const loadRun = async (label: any, list: any, { concurrency, answerCheck }: any) => {
    step(`${label}: ${P.warmup} warm-up + ${P.readRequests} requests at concurrency ${concurrency}`);
    const meter = cpuMeter(productPids);
    // runLoad calls make(i) and then check(res, i) for the same request; the warm-up and the
    // measured part each count i from 0 and never overlap.
    const chosen: any[] = [];
    const sentAt: any[] = [];
    const took: any[] = [];
    const r = await runLoad({
      port: gatewayPort,
      concurrency,
      warmup: P.warmup,
      total: P.readRequests,
      maxMs: phaseLimitMs(),
      make: (i) => {
        chosen[i] = pick(list);
        sentAt[i] = performance.now();
        return { method: 'GET', path: `/v1/payouts/tx/${chosen[i]}`, headers: auth };
      },
      expect: 200,
      check: (res, i) => answerCheck(res, chosen[i]),
      // Called for measured requests only, right after the answer: where in the run the slow ones were.
      onSample: (res, i) => {
        took[i] = performance.now() - sentAt[i];
      },
    });
    r.slowest = slowest(took);
    r.cpuPercentOfOneCore = withOthers(meter.stop());
    // Includes the warm-up answers (checked too).
    r.rowsPerAnswer = meanOf(rowsSeen);
    rowsSeen.length = 0;
    log(`  ${fmtRun(r)}`);
    return r;
  };
  const unknown = Array.from({ length: 20_000 }, () => `0x${randomBytes(32).toString('hex')}`);
  // The services sat idle through the seed: one unmeasured pass over both kinds of hash first
  // (the first measured run was otherwise the slowest, whatever it measured).
  if (P.stackWarmup > 0) {
    step(`warming the stack up: ${P.stackWarmup} unmeasured requests (tenant's and unknown hashes) at concurrency 1`);
    const mixed = [...hashes.mine.slice(0, 5000), ...unknown.slice(0, 5000)];
    const w = await runLoad({
      port: gatewayPort,
      concurrency: 1,
      warmup: 0,
      total: P.stackWarmup,
      maxMs: phaseLimitMs(),
      make: () => ({ method: 'GET', path: `/v1/payouts/tx/${pick(mixed)}`, headers: auth }),
      expect: 200,
    });
    results.stackWarmup = { requests: w.completed, seconds: w.seconds, p50Ms: w.p50Ms, p99Ms: w.p99Ms, errors: w.errors, errorSamples: w.errorSamples };
    if (w.errors > 0) throw new Error(`warm-up: ${w.errors} failed requests, e.g. ${w.errorSamples[0]}`);
  }
  results.scenarios.byTxC1 = await loadRun("by tx, the tenant's hashes, via the gateway", hashes.mine, { concurrency: 1, answerCheck: answerMine });
  results.scenarios.byTxCN = await loadRun("by tx, the tenant's hashes, via the gateway", hashes.mine, { concurrency: P.concurrency, answerCheck: answerMine });
  results.scenarios.byTxUnknown = await loadRun('by tx, unknown hashes, via the gateway', unknown, { concurrency: 1, answerCheck: answerEmpty });
  results.scenarios.byTxOtherTenant = await loadRun("by tx, other tenants' hashes, via the gateway", hashes.others, {
    concurrency: 1,
    answerCheck: answerEmpty,
  });

  // The same query straight on Postgres (superuser, one connection, the repository's SQL).
  const LedgerRepository = await loadLedgerRepository();
  const viewer = { tenantId, admin: false };
  const sqlPool = pool(dbName, 1);
  results.scenarios.byTxSql = await sqlRun(
    "by tx, the tenant's hashes, SQL only",
    sqlPool,
    LedgerRepository,
    (repo) => repo.entriesByTx(viewer, pick(hashes.mine)),
    (list, params) =>
      list.length > 0 && list.every((e: any) => e.reference === params[2] && e.sourceId === BENCH_SOURCE)
        ? null
        : `unexpected answer for ${params[2]}: ${JSON.stringify(list).slice(0, 200)}`,
  );
  results.scenarios.byTxSqlUnknown = await sqlRun(
    'by tx, unknown hashes, SQL only',
    sqlPool,
    LedgerRepository,
    (repo) => repo.entriesByTx(viewer, pick(unknown)),
    (list) => (list.length === 0 ? null : `expected no entries, got ${list.length}`),
  );

  step('EXPLAIN (ANALYZE, BUFFERS) of the by-tx SQL');
  results.plans = {
    byTxTenantHash: await explain(db, LedgerRepository, (repo) => repo.entriesByTx(viewer, pick(hashes.mine))),
    byTxUnknownHash: await explain(db, LedgerRepository, (repo) => repo.entriesByTx(viewer, pick(unknown))),
  };

  // ---- 4. ingestion
  const ing = await ingest({ db, nats, productEnv, payoutEntry });
  results.ingest = ing.result;

  const hold = envInt('BENCH_HOLD_SECONDS', 0, { min: 0, max: 3600 });
  if (hold > 0) {
    log(
      `holding the stack for ${hold} s (BENCH_HOLD_SECONDS): gateway http://127.0.0.1:${gatewayPort} (x-api-key ${key}, admin ${adminKey}), database ${dbName}, NATS ${nats.url}`,
    );
    await sleep(hold * 1000);
  }
  step('stopping children');
  await closeNats();
  await children.stopAll();
  results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
  return { results, machine, nats };
}
