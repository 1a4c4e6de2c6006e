// Ingestion and the scenarios in order (see main.ts).
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrapDatabase } from '../../../infra/postgres/bootstrap.mjs';
import { Figures, ROOT, cpuMeter, envInt, fmtRun, loadLedgerRepository, log, logIssues, request, round, runLoad, sleep, waitFor200 } from '../harness/index.js';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { NatsConnection, connect as natsConnect } from '@nats-io/transport-node';
import { freePort } from '@tradeinfra/test-support';
import {
  ADMIN_TENANT,
  BENCH_SOURCE,
  INGEST_CHAIN,
  P,
  TENANT,
  children,
  env,
  phaseLimitMs,
  pick,
  pool,
  run,
  runNode,
  secondsSince,
  step,
  uuidFloor,
} from './context.js';
import { machineInfo } from './report.js';
import { explain, meanOf, sampleHashes, seed, slowest, sqlRun, withOthers } from './seed.js';

export let natsClient: NatsConnection | null = null;
run.onCleanup(() => natsClient?.close());
// ---------------------------------------------------------------- ingestion

export function mevEvent(j: any, txHashes: any) {
  return {
    id: randomUUID(),
    chainId: INGEST_CHAIN,
    txHash: txHashes[Math.floor(j / P.entriesPerTx)],
    sourceId: BENCH_SOURCE,
    generatedBySourceId: j % 5 === 0 ? 'bench-gen-1' : null,
    asset: j % 3 === 0 ? 'USDC' : 'ETH',
    amount: j % 3 === 0 ? `${1 + (j % 1000)}.${String(j % 1_000_000).padStart(6, '0')}` : `0.${String(1 + ((j * 7919) % 999_999_999)).padStart(18, '0')}`,
    type: 'mev',
    time: new Date().toISOString(),
  };
}

/** Publishes the events to JetStream, `publishWindow` in flight, acks awaited per window. */
export async function publishAll(js: any, events: any) {
  const subject = `mev.captured.${INGEST_CHAIN}`;
  const t0 = performance.now();
  let lastSeq = 0;
  let duplicates = 0;
  for (let from = 0; from < events.length; from += P.publishWindow) {
    if (run.aborting) throw new Error('aborted');
    if (secondsSince(t0) * 1000 > phaseLimitMs()) throw new Error(`publishing did not finish within ${P.phaseMaxSeconds} s`);
    const window = events.slice(from, from + P.publishWindow);
    const acks = await Promise.all(window.map((e: any) => js.publish(subject, JSON.stringify(e), { msgID: e.id, timeout: 30_000 })));
    for (const a of acks) {
      if (a.duplicate) duplicates++;
      if (a.seq > lastSeq) lastSeq = a.seq;
    }
  }
  const seconds = secondsSince(t0);
  return {
    events: events.length,
    seconds: round(seconds, 3),
    eventsPerSec: round(events.length / seconds, 0),
    window: P.publishWindow,
    lastStreamSeq: lastSeq,
    duplicates,
  };
}

export async function ingest({ db, nats, productEnv, payoutEntry }: any) {
  const result: Figures = {};
  const N = P.ingestEvents;
  natsClient = await natsConnect({ servers: nats.url, name: 'bench-payouts' });
  const js = jetstream(natsClient);
  const jsm = await jetstreamManager(natsClient);
  const stream = await jsm.streams.info('MEV_CAPTURE');
  result.streamBefore = { messages: stream.state.messages, lastSeq: stream.state.last_seq, storage: stream.config.storage };

  step('ingestion: stopping the payout service');
  await children.stop(payoutEntry);

  // Every entry the service makes from now on has a UUIDv7 id above this one; every seeded id is below.
  const floor = uuidFloor(Date.now() - 1);
  const newRows = async () => (await db.query('SELECT count(*)::int AS n FROM payout.entries WHERE id >= $1::uuid', [floor])).rows[0].n;
  if ((await newRows()) !== 0) throw new Error('entries above the id floor before publishing');

  const txHashes = Array.from({ length: Math.ceil(N / P.entriesPerTx) }, () => `0x${randomBytes(32).toString('hex')}`);
  const events = Array.from({ length: N }, (_, j) => mevEvent(j, txHashes));
  step(`ingestion: publishing ${N.toLocaleString('en-US')} MEV-capture events to mev.captured.${INGEST_CHAIN} (${P.publishWindow} in flight)`);
  const meterPub = cpuMeter({ ...(nats.pid ? { 'nats-server': nats.pid } : {}) });
  result.publish = await publishAll(js, events);
  result.publish.cpuPercentOfOneCore = withOthers(meterPub.stop());
  log(`  published in ${result.publish.seconds} s = ${result.publish.eventsPerSec.toLocaleString('en-US')} events/s (acked by JetStream)`);
  const consumerBefore = await jsm.consumers.info('MEV_CAPTURE', 'payout-service');
  result.consumerBeforeStart = { numPending: consumerBefore.num_pending, numAckPending: consumerBefore.num_ack_pending };
  if (consumerBefore.num_pending < N) throw new Error(`the payout-service consumer has ${consumerBefore.num_pending} pending messages, expected at least ${N}`);

  step('ingestion: starting the payout service and timing until every event is applied');
  const spawnedAt = Date.now();
  const tSpawn = performance.now();
  const entry = children.start('payout-service-ingest', process.execPath, [join(ROOT, 'apps/payout-service/dist/main.js')], {
    cwd: ROOT,
    env: productEnv,
    readyLine: /listening on/,
    readyTimeoutMs: 60_000,
  });
  const meter = cpuMeter({ 'payout-service': entry.child.pid, ...(nats.pid ? { 'nats-server': nats.pid } : {}) });
  let readyMs: any = null;
  entry.ready.then(() => (readyMs = performance.now() - tSpawn)).catch(() => {});
  const progress: any[] = [];
  let n = 0;
  let doneMs: any = null;
  let doneAt: any = null;
  let lastLog = 0;
  while (performance.now() - tSpawn < phaseLimitMs()) {
    if (run.aborting) throw new Error('aborted');
    children.assertAlive();
    n = await newRows();
    const ms = performance.now() - tSpawn;
    progress.push([round(ms, 0), n]);
    if (n >= N) {
      doneMs = ms;
      doneAt = Date.now();
      break;
    }
    if (ms - lastLog > 2000) {
      lastLog = ms;
      log(`  ${n.toLocaleString('en-US')} / ${N.toLocaleString('en-US')} applied after ${(ms / 1000).toFixed(1)} s`);
    }
    await sleep(100);
  }
  result.cpuPercentOfOneCore = withOthers(meter.stop());
  const span = (
    await db.query(
      `SELECT extract(epoch FROM min(created_at)) * 1000 AS first_ms, extract(epoch FROM max(created_at)) * 1000 AS last_ms,
              count(DISTINCT created_at)::int AS statements
         FROM payout.entries WHERE id >= $1::uuid`,
      [floor],
    )
  ).rows[0];
  result.events = N;
  result.applied = n;
  result.ingestBatch = productEnv.INGEST_BATCH ?? '500 (default)';
  result.serviceReadySeconds = readyMs === null ? null : round(readyMs / 1000, 2);
  result.timeBoundHit = doneMs === null;
  result.insertStatements = span.statements;
  if (doneMs !== null) {
    // created_at is the inserting statement's start (now()), on the same clock as Date.now().
    const firstInsertAt = Number(span.first_ms);
    result.startupSeconds = round((firstInsertAt - spawnedAt) / 1000, 2);
    result.applySeconds = round((doneAt - firstInsertAt) / 1000, 2);
    result.applyEventsPerSec = round(N / ((doneAt - firstInsertAt) / 1000), 0);
    result.spawnToDoneSeconds = round(doneMs / 1000, 2);
    result.spawnToDoneEventsPerSec = round(N / (doneMs / 1000), 0);
    result.lastInsertStartedBeforeDoneSeconds = round((doneAt - Number(span.last_ms)) / 1000, 2);
  }
  result.progress = progress;
  // Every message acked, none dead-lettered, nothing applied twice.
  let consumer = await jsm.consumers.info('MEV_CAPTURE', 'payout-service');
  for (let i = 0; i < 50 && consumer.num_ack_pending > 0; i++) {
    await sleep(100);
    consumer = await jsm.consumers.info('MEV_CAPTURE', 'payout-service');
  }
  result.consumerAfter = {
    numPending: consumer.num_pending,
    numAckPending: consumer.num_ack_pending,
    numRedelivered: consumer.num_redelivered,
    ackFloorStreamSeq: consumer.ack_floor.stream_seq,
  };
  result.deadLettered = (await jsm.streams.info('MEV_CAPTURE_DLQ')).state.messages;
  result.entriesCreated = await newRows();
  const problems: any[] = [];
  if (result.timeBoundHit) problems.push(`only ${n} of ${N} events applied within ${P.phaseMaxSeconds} s`);
  if (result.entriesCreated !== N) problems.push(`${result.entriesCreated} entries created for ${N} events`);
  if (result.deadLettered !== 0) problems.push(`${result.deadLettered} events dead-lettered`);
  if (consumer.num_pending !== 0 || consumer.num_ack_pending !== 0)
    problems.push(`consumer left with ${consumer.num_pending} pending, ${consumer.num_ack_pending} unacked`);
  result.errors = problems.length;
  result.problems = problems;
  if (doneMs !== null) {
    log(
      `  applied ${N.toLocaleString('en-US')} events in ${result.applySeconds} s from the first insert = ${result.applyEventsPerSec.toLocaleString('en-US')} events/s ` +
        `(start-up ${result.startupSeconds} s; spawn → all applied ${result.spawnToDoneSeconds} s = ${result.spawnToDoneEventsPerSec.toLocaleString('en-US')} events/s)`,
    );
  }
  for (const p of problems) log(`  PROBLEM: ${p}`);
  return { result, entry };
}

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
  const start = (name: any, app: any, extra = {}) =>
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
  const answerMine = (res: any, hash: any) => {
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
  const answerEmpty = (res: any) => {
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
    (repo: any) => repo.entriesByTx(viewer, pick(hashes.mine)),
    (list: any, params: any) =>
      list.length > 0 && list.every((e: any) => e.reference === params[2] && e.sourceId === BENCH_SOURCE)
        ? null
        : `unexpected answer for ${params[2]}: ${JSON.stringify(list).slice(0, 200)}`,
  );
  results.scenarios.byTxSqlUnknown = await sqlRun(
    'by tx, unknown hashes, SQL only',
    sqlPool,
    LedgerRepository,
    (repo: any) => repo.entriesByTx(viewer, pick(unknown)),
    (list: any) => (list.length === 0 ? null : `expected no entries, got ${list.length}`),
  );

  step('EXPLAIN (ANALYZE, BUFFERS) of the by-tx SQL');
  results.plans = {
    byTxTenantHash: await explain(db, LedgerRepository, (repo: any) => repo.entriesByTx(viewer, pick(hashes.mine))),
    byTxUnknownHash: await explain(db, LedgerRepository, (repo: any) => repo.entriesByTx(viewer, pick(unknown))),
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
  await natsClient!.close().catch(() => {});
  natsClient = null;
  await children.stopAll();
  results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
  return { results, machine, nats };
}
