#!/usr/bin/env node
// Payout ledger benchmark: `npm run bench:payouts` (which installs, builds and migrates first).
// Runs on its own database (ti_bench_<pid>_<random>, dropped at the end) and its own
// nats-server, like bench/intents.mjs.
//
//   1. start gateway, intent, simulation and payout services; API keys; register the bench
//      source to the bench tenant through `POST /v1/sources`
//   2. seed BENCH_PAYOUT_ROWS ledger entries (10M) in SQL, VACUUM (ANALYZE)
//   3. GET /v1/payouts/tx/:hash through the gateway: the tenant's hashes at concurrency 1 and 16,
//      unknown hashes, another tenant's hashes; the same query straight on Postgres; EXPLAIN
//   4. ingestion: stop the payout service, publish BENCH_INGEST_EVENTS MEV-capture events to
//      JetStream, start it again and time how fast it applies them
// Prints a table on stdout and writes bench/results/payouts.json. See bench/README.md.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect } from '@nats-io/transport-node';
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
  ident,
  loadLedgerRepository,
  log,
  logIssues,
  percentile,
  request,
  round,
  runLoad,
  runNodeScript,
  sleep,
  waitFor200,
} from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results', 'payouts.json');

// ---------------------------------------------------------------- parameters

const P = {
  rows: envInt('BENCH_PAYOUT_ROWS', 10_000_000, { min: 1000, max: 50_000_000 }),
  seedChunk: envInt('BENCH_SEED_CHUNK', 1_000_000, { min: 1000, max: 10_000_000 }),
  seedIndexes: process.env.BENCH_SEED_INDEXES || 'rebuild',
  readRequests: envInt('BENCH_READ_REQUESTS', 2000, { max: 1_000_000 }),
  warmup: envInt('BENCH_WARMUP', 500, { min: 0, max: 100_000 }),
  stackWarmup: envInt('BENCH_STACK_WARMUP', 3000, { min: 0, max: 1_000_000 }),
  concurrency: envInt('BENCH_CONCURRENCY', 16, { max: 1024 }),
  ingestEvents: envInt('BENCH_INGEST_EVENTS', 50_000, { min: 100, max: 5_000_000 }),
  publishWindow: envInt('BENCH_PUBLISH_WINDOW', 1000, { max: 100_000 }),
  phaseMaxSeconds: envInt('BENCH_PHASE_MAX_SECONDS', 120, { max: 3600 }),
  maxSeconds: envInt('BENCH_MAX_SECONDS', 1800, { max: 24 * 3600 }),
  /** Share of seeded transactions (%) credited to the bench tenant's source. */
  benchSharePct: 80,
  /** Seeded entries per transaction hash (entries i, i+1, i+2 share the hash of i / 3). */
  entriesPerTx: 3,
  otherSources: 1000,
};
if (!['rebuild', 'keep'].includes(P.seedIndexes)) throw new Error(`BENCH_SEED_INDEXES must be rebuild or keep (got ${JSON.stringify(P.seedIndexes)})`);
const TARGETS = { byTxP99Ms: 5, ingestEventsPerSec: 5000 };
const BENCH_SOURCE = 'bench-src';
const TENANT = 'bench';
const ADMIN_TENANT = 'bench-admin';
const INGEST_CHAIN = 1;

const env = withDefaults(process.env);
const startedAt = new Date();
const run = new BenchRun({ name: 'payouts', env, maxSeconds: P.maxSeconds, applicationName: 'bench-payouts' });
const { tmp, children } = run;
let natsClient = null;
run.onCleanup(() => natsClient?.close());
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

function shuffle(array) {
  for (let i = array.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [array[i], array[j]] = [array[j], array[i]];
  }
  return array;
}


function secondsSince(t0) {
  return (performance.now() - t0) / 1000;
}

/** The smallest UUIDv7 of a millisecond. */
function uuidFloor(ms) {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}


// ---------------------------------------------------------------- NATS


// ---------------------------------------------------------------- seeding

// Row g (0-based) belongs to transaction k = g / 3. Per transaction (from hashes of k): the
// reference (0x + 64 hex), the source (BENCH_SOURCE for benchSharePct % of transactions, else one
// of `otherSources` others), the chain and the asset. Per row: a UUIDv7 id, time-ordered with g
// (version 7, variant 10) and older than the run, a random-looking event id, an amount.
// hashint8extended (not md5: 5x cheaper), and OFFSET 0 so that the planner does not inline the
// subqueries and compute each hash again wherever its column is used.
const SEED_SQL = `
INSERT INTO payout.entries (id, event_id, chain_id, reference, source_id, generated_by_source_id, asset, amount, type, status, occurred_at, created_at)
SELECT
  (lpad(to_hex(r.ms), 12, '0') || '7' || substr(r.rh, 1, 3) || '8' || substr(r.rh, 4, 15))::uuid,
  (lpad(to_hex(hashint8extended(r.g, 11)), 16, '0') || lpad(to_hex(hashint8extended(r.g, 12)), 16, '0'))::uuid,
  CASE WHEN r.c < 60 THEN 1 WHEN r.c < 85 THEN 56 ELSE 137 END,
  r.reference,
  CASE WHEN r.n < $5::int THEN $6::text ELSE 'bench-other-' || (r.k % $7::int) END,
  CASE WHEN r.n % 5 = 0 THEN 'bench-gen-' || (r.k % 500) END,
  CASE WHEN r.c < 42 THEN 'ETH' WHEN r.c < 60 THEN 'USDC' WHEN r.c < 85 THEN 'BNB' ELSE 'POL' END,
  (1 + (r.g * 7919) % 999999999) * CASE WHEN r.c >= 42 AND r.c < 60 THEN 0.000001 ELSE 0.000000001 END,
  'mev',
  'PENDING',
  r.at - interval '3 seconds',
  r.at
FROM (
  SELECT q.g, q.k, q.ms, q.at, q.rh, q.reference, ((q.hk >> 8) & 65535) % 100 AS n, ((q.hk >> 24) & 65535) % 100 AS c
  FROM (
    SELECT g, g / ${P.entriesPerTx} AS k, $3::bigint + g * $4::bigint AS ms,
           'epoch'::timestamptz + ($3::bigint + g * $4::bigint) * interval '1 millisecond' AS at,
           lpad(to_hex(hashint8extended(g, 7)), 16, '0') || lpad(to_hex(hashint8extended(g, 8)), 16, '0') AS rh,
           '0x' || lpad(to_hex(hashint8extended(g / ${P.entriesPerTx}, 1)), 16, '0') || lpad(to_hex(hashint8extended(g / ${P.entriesPerTx}, 2)), 16, '0')
                || lpad(to_hex(hashint8extended(g / ${P.entriesPerTx}, 3)), 16, '0') || lpad(to_hex(hashint8extended(g / ${P.entriesPerTx}, 4)), 16, '0') AS reference,
           hashint8extended(g / ${P.entriesPerTx}, 5) AS hk
    FROM generate_series($1::bigint, $2::bigint) AS g
    OFFSET 0
  ) q
  OFFSET 0
) r`;

/** Everything that defines the entries table's indexes and constraints, to check the seed left it as migrated. */
async function schemaFingerprint(db) {
  const { rows } = await db.query(
    `SELECT 'index ' || c.relname || ': ' || pg_get_indexdef(i.indexrelid) || CASE WHEN i.indisvalid AND i.indisready THEN '' ELSE ' (INVALID)' END AS d
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'payout.entries'::regclass
     UNION ALL
     SELECT 'constraint ' || conname || ': ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'payout.entries'::regclass
     UNION ALL
     SELECT 'column ' || attname || ': ' || format_type(atttypid, atttypmod) || CASE WHEN attnotnull THEN ' NOT NULL' ELSE '' END
       FROM pg_attribute WHERE attrelid = 'payout.entries'::regclass AND attnum > 0 AND NOT attisdropped
     ORDER BY 1`,
  );
  return rows.map((r) => r.d);
}

async function seed(db, otherTenantId) {
  const before = await schemaFingerprint(db);
  // The other sources belong to another tenant (the admin key's), so the bench tenant's
  // visibility filter has something to filter.
  await db.query(
    `INSERT INTO payout.sources (id, tenant_id) SELECT 'bench-other-' || n, $1::uuid FROM generate_series(0, $2::int - 1) n ON CONFLICT DO NOTHING`,
    [otherTenantId, P.otherSources],
  );
  // Seeded ids (and created_at) run from 30 days before the run to 1 minute before it.
  const endMs = startedAt.getTime() - 60_000;
  const spanMs = 30 * 24 * 3600 * 1000;
  const stepMs = Math.max(1, Math.floor(spanMs / P.rows));
  const startMs = endMs - stepMs * P.rows;
  const figures = { rows: P.rows, chunk: P.seedChunk, indexStrategy: P.seedIndexes, entriesPerTx: P.entriesPerTx, benchSharePct: P.benchSharePct };

  const conn = await db.connect();
  try {
    // Session settings of the bench's own superuser connection only; nothing changes on the server.
    await conn.query(`SET maintenance_work_mem = '1GB'`);
    await conn.query(`SET synchronous_commit = off`);
    let secondary = [];
    if (P.seedIndexes === 'rebuild') {
      // Secondary indexes are dropped before the bulk insert and rebuilt after it from their own
      // definitions (pg_get_indexdef). The primary key stays: ids are inserted in ascending
      // order, so it only ever appends.
      secondary = (
        await conn.query(
          `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
             FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'payout.entries'::regclass AND NOT i.indisprimary
            ORDER BY c.relname`,
        )
      ).rows;
      for (const ix of secondary) await conn.query(`DROP INDEX payout.${ident(ix.name)}`);
      log(`  dropped ${secondary.length} secondary indexes for the bulk insert: ${secondary.map((i) => i.name).join(', ')}`);
    }
    const t0 = performance.now();
    for (let from = 0; from < P.rows; from += P.seedChunk) {
      if (run.aborting) throw new Error('aborted');
      const to = Math.min(P.rows, from + P.seedChunk) - 1;
      await conn.query(SEED_SQL, [from, to, startMs, stepMs, P.benchSharePct, BENCH_SOURCE, P.otherSources]);
      const s = secondsSince(t0);
      log(`  inserted ${(to + 1).toLocaleString('en-US')} / ${P.rows.toLocaleString('en-US')} (${s.toFixed(1)} s, ${Math.round((to + 1) / s).toLocaleString('en-US')} rows/s)`);
    }
    figures.insertSeconds = round(secondsSince(t0), 1);
    figures.indexBuilds = [];
    const t1 = performance.now();
    for (const ix of secondary) {
      if (run.aborting) throw new Error('aborted');
      const ti = performance.now();
      await conn.query(ix.def);
      figures.indexBuilds.push({ name: ix.name, seconds: round(secondsSince(ti), 1) });
      log(`  rebuilt ${ix.name} (${secondsSince(ti).toFixed(1)} s)`);
    }
    figures.indexRebuildSeconds = round(secondsSince(t1), 1);
    const t2 = performance.now();
    // VACUUM too (not only ANALYZE): hint bits and the visibility map are set now, not by the
    // first readers during the measurements (and this server may run without autovacuum).
    await conn.query('VACUUM (ANALYZE) payout.entries');
    figures.vacuumAnalyzeSeconds = round(secondsSince(t2), 1);
    // The seed wrote a few GB (heap, indexes, WAL): flush them now, so neither a checkpoint nor
    // the kernel's writeback runs during the measurements.
    const t3 = performance.now();
    await conn.query('CHECKPOINT');
    figures.checkpointSeconds = round(secondsSince(t3), 1);
    figures.dirtyKiBAfterCheckpoint = dirtyKiB();
    figures.totalSeconds = round(secondsSince(t0), 1);
    log(`  VACUUM (ANALYZE) ${figures.vacuumAnalyzeSeconds} s, CHECKPOINT ${figures.checkpointSeconds} s (kernel dirty pages after it: ${figures.dirtyKiBAfterCheckpoint} KiB)`);
    figures.rowsPerSecondOverall = round(P.rows / figures.totalSeconds, 0);
  } finally {
    conn.release();
  }

  const after = await schemaFingerprint(db);
  figures.schemaAsMigrated = JSON.stringify(before) === JSON.stringify(after);
  if (!figures.schemaAsMigrated) {
    throw new Error(`payout.entries differs from the migration after seeding:\nbefore: ${before.join('\n')}\nafter: ${after.join('\n')}`);
  }
  figures.schema = after;
  figures.sizes = (
    await db.query(
      `SELECT pg_size_pretty(pg_table_size('payout.entries')) AS heap,
              pg_size_pretty(pg_indexes_size('payout.entries')) AS all_indexes,
              pg_size_pretty(pg_relation_size('payout.entries_reference_idx')) AS reference_idx,
              pg_size_pretty(pg_relation_size('payout.entries_event_id_key')) AS event_id_idx`,
    )
  ).rows[0];
  const stats = (
    await db.query(
      `SELECT count(*) FILTER (WHERE source_id = $1)::bigint AS bench, count(*)::bigint AS total
         FROM payout.entries TABLESAMPLE SYSTEM (1) REPEATABLE (1)`,
      [BENCH_SOURCE],
    )
  ).rows[0];
  figures.benchSourceShareSampled = Number(stats.total) ? round((Number(stats.bench) / Number(stats.total)) * 100, 1) : null;
  return figures;
}

/** Distinct references of the bench source (and of other sources), sampled from the table. */
async function sampleHashes(db) {
  const pct = Math.min(100, (60_000 * 100) / P.rows);
  const { rows } = await db.query(
    `SELECT reference, source_id = $1 AS mine, count(*)::int AS n
       FROM payout.entries TABLESAMPLE SYSTEM (${pct.toFixed(4)}) GROUP BY 1, 2`,
    [BENCH_SOURCE],
  );
  const mine = shuffle(rows.filter((r) => r.mine).map((r) => r.reference)).slice(0, 20_000);
  const others = shuffle(rows.filter((r) => !r.mine).map((r) => r.reference)).slice(0, 20_000);
  if (mine.length < 100 || others.length < 10) throw new Error(`too few sampled hashes (${mine.length} of the bench source, ${others.length} of others)`);
  return { mine, others };
}

// ---------------------------------------------------------------- plans and SQL-only runs

async function explain(db, LedgerRepository, call) {
  const { sql, params } = await captureRepositorySql(LedgerRepository, call, { rows: [{ json: '[]' }] });
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  const text = rows.map((r) => r['QUERY PLAN']).join('\n');
  const exec = /Execution Time: ([\d.]+) ms/.exec(text);
  return { sql, params, usesReferenceIndex: /entries_reference_idx/.test(text), executionMs: exec ? Number(exec[1]) : null, plan: text };
}

/** `P.readRequests` repository queries one after another on one connection, timing each round trip. */
async function sqlRun(label, db, LedgerRepository, call, check) {
  step(`${label}: ${P.warmup} warm-up + ${P.readRequests} queries at concurrency 1`);
  const rowsSeen = [];
  const order = [];
  const run = async (n, latencies) => {
    let done = 0;
    let errors = 0;
    const errorSamples = [];
    const started = performance.now();
    const limit = started + phaseLimitMs();
    for (let i = 0; i < n && performance.now() < limit; i++) {
      const { sql, params } = await captureRepositorySql(LedgerRepository, call, { rows: [{ json: '[]' }] });
      const t0 = performance.now();
      let wrong = null;
      try {
        const json = (await db.query(sql, params)).rows[0].json;
        const list = JSON.parse(json);
        wrong = check(list, params);
        if (latencies) rowsSeen.push(list.length);
      } catch (err) {
        wrong = err.message;
      }
      if (latencies) latencies[done] = performance.now() - t0;
      if (latencies) order.push(latencies[done]);
      if (wrong) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(wrong);
      }
      done++;
    }
    return { done, errors, errorSamples, elapsedMs: performance.now() - started };
  };
  await run(P.warmup, null);
  const latencies = new Float64Array(P.readRequests);
  const meter = cpuMeter({});
  const r = await run(P.readRequests, latencies);
  const cpu = withOthers(meter.stop());
  const sorted = latencies.subarray(0, r.done).sort();
  const out = {
    concurrency: 1,
    warmup: P.warmup,
    requested: P.readRequests,
    completed: r.done,
    seconds: round(r.elapsedMs / 1000, 3),
    reqPerSec: round(r.done / (r.elapsedMs / 1000), 1),
    p50Ms: round(percentile(sorted, 50), 2),
    p90Ms: round(percentile(sorted, 90), 2),
    p99Ms: round(percentile(sorted, 99), 2),
    maxMs: round(sorted[sorted.length - 1] ?? null, 2),
    meanMs: round(r.done ? sorted.reduce((a, b) => a + b, 0) / r.done : null, 2),
    errors: r.errors,
    errorsByKind: r.errors ? { 'sql or wrong answer': r.errors } : {},
    errorSamples: r.errorSamples,
    timeBoundHit: r.done < P.readRequests,
    rowsPerAnswer: meanOf(rowsSeen),
    cpuPercentOfOneCore: cpu,
    slowest: slowest(order),
  };
  log(`  ${fmtRun(out)}`);
  return out;
}

/**
 * Adds `othersPercentOfOneCore`: the whole box's busy time minus this stack's processes (the
 * Postgres figure counts every local postgres process, other users' backends included). Above a
 * few tens of %, something else was running during the measurement.
 */
function withOthers(cpu) {
  if (!cpu?.machine) return cpu;
  const ours = Object.entries(cpu)
    .filter(([k, v]) => k !== 'machine' && typeof v === 'number')
    .reduce((a, [, v]) => a + v, 0);
  cpu.machine.othersPercentOfOneCore = Math.max(0, round(cpu.machine.busyPercentOfAllCores * cpu.machine.cores - ours, 0));
  return cpu;
}

/** Dirty page cache (kB) from /proc/meminfo; null where there is none. */
function dirtyKiB() {
  try {
    return Number(/^Dirty:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? NaN) || 0;
  } catch {
    return null;
  }
}

/** The `n` slowest of `latencies` with their position in the run (0 = first measured request). */
function slowest(latencies, n = 20) {
  return [...latencies.entries()]
    .filter(([, ms]) => ms !== undefined)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([at, ms]) => ({ at, ms: round(ms, 2) }));
}

function meanOf(list) {
  if (list.length === 0) return null;
  return { mean: round(list.reduce((a, b) => a + b, 0) / list.length, 2), min: Math.min(...list), max: Math.max(...list) };
}

// ---------------------------------------------------------------- ingestion

function mevEvent(j, txHashes) {
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
async function publishAll(js, events) {
  const subject = `mev.captured.${INGEST_CHAIN}`;
  const t0 = performance.now();
  let lastSeq = 0;
  let duplicates = 0;
  for (let from = 0; from < events.length; from += P.publishWindow) {
    if (run.aborting) throw new Error('aborted');
    if (secondsSince(t0) * 1000 > phaseLimitMs()) throw new Error(`publishing did not finish within ${P.phaseMaxSeconds} s`);
    const window = events.slice(from, from + P.publishWindow);
    const acks = await Promise.all(window.map((e) => js.publish(subject, JSON.stringify(e), { msgID: e.id, timeout: 30_000 })));
    for (const a of acks) {
      if (a.duplicate) duplicates++;
      if (a.seq > lastSeq) lastSeq = a.seq;
    }
  }
  const seconds = secondsSince(t0);
  return { events: events.length, seconds: round(seconds, 3), eventsPerSec: round(events.length / seconds, 0), window: P.publishWindow, lastStreamSeq: lastSeq, duplicates };
}

async function ingest({ db, nats, productEnv, payoutEntry }) {
  const result = {};
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
  let readyMs = null;
  entry.ready.then(() => (readyMs = performance.now() - tSpawn)).catch(() => {});
  const progress = [];
  let n = 0;
  let doneMs = null;
  let doneAt = null;
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
  result.consumerAfter = { numPending: consumer.num_pending, numAckPending: consumer.num_ack_pending, numRedelivered: consumer.num_redelivered, ackFloorStreamSeq: consumer.ack_floor.stream_seq };
  result.deadLettered = (await jsm.streams.info('MEV_CAPTURE_DLQ')).state.messages;
  result.entriesCreated = await newRows();
  const problems = [];
  if (result.timeBoundHit) problems.push(`only ${n} of ${N} events applied within ${P.phaseMaxSeconds} s`);
  if (result.entriesCreated !== N) problems.push(`${result.entriesCreated} entries created for ${N} events`);
  if (result.deadLettered !== 0) problems.push(`${result.deadLettered} events dead-lettered`);
  if (consumer.num_pending !== 0 || consumer.num_ack_pending !== 0) problems.push(`consumer left with ${consumer.num_pending} pending, ${consumer.num_ack_pending} unacked`);
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

async function main() {
  const results = { scenarios: {} };
  await run.dropLeftovers();

  step('starting NATS');
  const nats = await run.startNats();
  log(`  NATS ${nats.private ? `private nats-server at ${nats.url}` : `shared at ${nats.url}`}`);

  dbName = `ti_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  step(`creating database ${dbName}`);
  run.useDatabase(dbName); // from here on, cleanup drops it (IF EXISTS)
  await bootstrapDatabase({ env, database: dbName });
  const cleanEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !/^(RPC_URL|HARDFORK)_\d+$/.test(k)));
  const baseEnv = { ...cleanEnv, PGDATABASE: dbName, NATS_URL: nats.url, LOG_FORMAT: 'json', NO_COLOR: '1' };
  for (const app of ['gateway', 'intent-service', 'payout-service']) {
    const out = runNode(`apps/${app}/dist/database/migrate.js`, [], baseEnv);
    log(`  ${out.trim()}`);
  }
  const key = runNode('apps/gateway/dist/cli/apikey.js', ['create', '--name', TENANT, '--scopes', 'payouts:read'], baseEnv).trim();
  const adminKey = runNode('apps/gateway/dist/cli/apikey.js', ['create', '--name', ADMIN_TENANT, '--scopes', 'admin'], baseEnv).trim();
  for (const k of [key, adminKey]) if (!/^ti_[A-Za-z0-9_-]{43}$/.test(k)) throw new Error(`apikey create printed something unexpected: ${k.slice(0, 80)}`);
  const db = pool(dbName, 3);
  const tenantOf = async (name) => (await db.query(`SELECT id FROM gateway.tenants WHERE name = $1`, [name])).rows[0].id;
  const tenantId = await tenantOf(TENANT);
  const adminTenantId = await tenantOf(ADMIN_TENANT);
  log(`  API keys: ${key.slice(0, 10)}… (payouts:read) for tenant ${TENANT} ${tenantId}; ${adminKey.slice(0, 10)}… (admin)`);
  const machine = await machineInfo(db, nats);

  // ---- 1. the product (started before the seed, so a start-up problem shows in seconds, not minutes)
  step('starting the intent, simulation and payout services and the gateway');
  const gatewayPort = await freePort();
  const productEnv = { ...baseEnv, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', HOST: '127.0.0.1' };
  const start = (name, app, extra = {}) =>
    children.start(name, process.execPath, [join(ROOT, `apps/${app}/dist/main.js`)], {
      cwd: ROOT,
      env: { ...productEnv, ...extra },
      readyLine: /listening on/,
      readyTimeoutMs: 60_000,
    });
  // The intent and simulation services are only here for the gateway's /ready. One that exits
  // during start-up is started again (twice at most); every failed start is reported.
  results.startFailures = [];
  const startOther = async (app) => {
    for (let attempt = 1; ; attempt++) {
      const entry = start(attempt === 1 ? app : `${app}-attempt${attempt}`, app);
      try {
        await entry.ready;
        return entry;
      } catch (err) {
        if (entry.exited === null || attempt === 3) throw err;
        entry.expectedExit = true;
        const fatal = readFileSync(entry.logPath, 'utf8').split('\n').filter((l) => /"level":"(fatal|error)"/.test(l)).pop() ?? '';
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
  const rowsSeen = [];
  const answerMine = (res, hash) => {
    let body;
    try {
      body = JSON.parse(res.body);
    } catch {
      return `not JSON: ${res.body.slice(0, 200)}`;
    }
    if (!Array.isArray(body)) return `not an array: ${res.body.slice(0, 200)}`;
    rowsSeen.push(body.length);
    if (body.length === 0) return `no entries for ${hash}`;
    for (const e of body) if (e.reference !== hash || e.sourceId !== BENCH_SOURCE || e.status !== 'PENDING') return `unexpected entry ${JSON.stringify(e).slice(0, 300)}`;
    return null;
  };
  const answerEmpty = (res) => {
    rowsSeen.push(res.body === '[]' ? 0 : 1);
    return res.body === '[]' ? null : `expected [], got ${res.body.slice(0, 200)}`;
  };
  const loadRun = async (label, list, { concurrency, answerCheck }) => {
    step(`${label}: ${P.warmup} warm-up + ${P.readRequests} requests at concurrency ${concurrency}`);
    const meter = cpuMeter(productPids);
    // runLoad calls make(i) and then check(res, i) for the same request; the warm-up and the
    // measured part each count i from 0 and never overlap.
    const chosen = [];
    const sentAt = [];
    const took = [];
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
  results.scenarios.byTxC1 = await loadRun('by tx, the tenant\'s hashes, via the gateway', hashes.mine, { concurrency: 1, answerCheck: answerMine });
  results.scenarios.byTxCN = await loadRun('by tx, the tenant\'s hashes, via the gateway', hashes.mine, { concurrency: P.concurrency, answerCheck: answerMine });
  results.scenarios.byTxUnknown = await loadRun('by tx, unknown hashes, via the gateway', unknown, { concurrency: 1, answerCheck: answerEmpty });
  results.scenarios.byTxOtherTenant = await loadRun('by tx, other tenants\' hashes, via the gateway', hashes.others, { concurrency: 1, answerCheck: answerEmpty });

  // The same query straight on Postgres (superuser, one connection, the repository's SQL).
  const LedgerRepository = await loadLedgerRepository(ROOT);
  const viewer = { tenantId, admin: false };
  const sqlPool = pool(dbName, 1);
  results.scenarios.byTxSql = await sqlRun('by tx, the tenant\'s hashes, SQL only', sqlPool, LedgerRepository, (repo) => repo.entriesByTx(viewer, pick(hashes.mine)), (list, params) =>
    list.length > 0 && list.every((e) => e.reference === params[2] && e.sourceId === BENCH_SOURCE) ? null : `unexpected answer for ${params[2]}: ${JSON.stringify(list).slice(0, 200)}`,
  );
  results.scenarios.byTxSqlUnknown = await sqlRun('by tx, unknown hashes, SQL only', sqlPool, LedgerRepository, (repo) => repo.entriesByTx(viewer, pick(unknown)), (list) =>
    list.length === 0 ? null : `expected no entries, got ${list.length}`,
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
    log(`holding the stack for ${hold} s (BENCH_HOLD_SECONDS): gateway http://127.0.0.1:${gatewayPort} (x-api-key ${key}, admin ${adminKey}), database ${dbName}, NATS ${nats.url}`);
    await sleep(hold * 1000);
  }
  step('stopping children');
  await natsClient.close().catch(() => {});
  natsClient = null;
  await children.stopAll();
  results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
  return { results, machine, nats };
}

async function machineInfo(db, nats) {
  const q = async (sql) => (await db.query(sql)).rows[0];
  const settings = {};
  for (const name of ['shared_buffers', 'work_mem', 'maintenance_work_mem', 'max_connections', 'synchronous_commit', 'fsync', 'effective_cache_size', 'random_page_cost', 'max_wal_size', 'autovacuum', 'max_parallel_maintenance_workers']) {
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

function table(rows, headers, textColumns = 2) {
  const cells = [headers, ...rows].map((r) => r.map((c) => (c === null || c === undefined ? '–' : String(c))));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i >= textColumns ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function fmtCpu(cpu) {
  const { machine, ...procs } = cpu ?? {};
  const list = Object.entries(procs)
    .map(([k, v]) => `${k} ${v ?? '?'}`)
    .join(', ');
  return machine ? `${list}; whole box ${machine.busyPercentOfAllCores}% busy of ${machine.cores} cores` : list;
}

function yes(b) {
  return b ? 'yes' : 'NO';
}

function report({ results, machine, nats }, totalSeconds) {
  const s = results.scenarios;
  const ing = results.ingest;
  const verdict = (ok) => (ok ? 'MET' : 'MISSED');
  const targets = {
    byTxP99Concurrency1: { ms: s.byTxC1.p99Ms, target: `<= ${TARGETS.byTxP99Ms} ms`, met: s.byTxC1.p99Ms !== null && s.byTxC1.p99Ms <= TARGETS.byTxP99Ms },
    // Shown against the same figure, but not a target: in a closed loop, latency = concurrency ÷
    // throughput, so p99 <= 5 ms at 16 in flight needs well over 3,200 req/s through the stack.
    byTxP99Concurrency16: { ms: s.byTxCN.p99Ms, concurrency: P.concurrency, target: `<= ${TARGETS.byTxP99Ms} ms (informational)`, met: s.byTxCN.p99Ms !== null && s.byTxCN.p99Ms <= TARGETS.byTxP99Ms, informational: true },
    byTxP99Unknown: { ms: s.byTxUnknown.p99Ms, target: `<= ${TARGETS.byTxP99Ms} ms`, met: s.byTxUnknown.p99Ms !== null && s.byTxUnknown.p99Ms <= TARGETS.byTxP99Ms },
    byTxUsesReferenceIndex: { met: results.plans.byTxTenantHash.usesReferenceIndex && results.plans.byTxUnknownHash.usesReferenceIndex },
    ingestEventsPerSec: { eventsPerSec: ing.applyEventsPerSec ?? null, target: `>= ${TARGETS.ingestEventsPerSec}`, met: (ing.applyEventsPerSec ?? 0) >= TARGETS.ingestEventsPerSec },
  };
  const errors = Object.values(s).reduce((n, r) => n + r.errors, 0) + ing.errors;
  const rows = [
    ['GET /v1/payouts/tx/:hash  tenant\'s hash', 'gateway', s.byTxC1],
    ['GET /v1/payouts/tx/:hash  tenant\'s hash', 'gateway', s.byTxCN],
    ['GET /v1/payouts/tx/:hash  unknown hash', 'gateway', s.byTxUnknown],
    ['GET /v1/payouts/tx/:hash  other tenant\'s hash', 'gateway', s.byTxOtherTenant],
    ['by-tx SQL  tenant\'s hash', 'SQL only', s.byTxSql],
    ['by-tx SQL  unknown hash', 'SQL only', s.byTxSqlUnknown],
  ].map(([name, target, r]) => [
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
    r.cpuPercentOfOneCore?.machine?.busyPercentOfAllCores ?? null,
    r.cpuPercentOfOneCore?.machine?.othersPercentOfOneCore ?? null,
  ]);
  const ingestRows = [
    ['publish to JetStream (acked)', `${ing.publish.window} in flight`, ing.publish.events, ing.publish.seconds, ing.publish.eventsPerSec, ing.publish.cpuPercentOfOneCore?.machine?.busyPercentOfAllCores, ing.publish.cpuPercentOfOneCore?.machine?.othersPercentOfOneCore],
    ['apply: first insert → all applied', `INGEST_BATCH ${ing.ingestBatch}`, ing.applied, ing.applySeconds ?? null, ing.applyEventsPerSec ?? null, ing.cpuPercentOfOneCore?.machine?.busyPercentOfAllCores, ing.cpuPercentOfOneCore?.machine?.othersPercentOfOneCore],
    ['apply: service spawn → all applied', `start-up ${ing.startupSeconds ?? '?'} s`, ing.applied, ing.spawnToDoneSeconds ?? null, ing.spawnToDoneEventsPerSec ?? null, null, null],
  ];
  const seed = results.seed;
  const plan = results.plans.byTxTenantHash;
  const lines = [];
  lines.push('');
  lines.push(`Payout ledger benchmark — ${startedAt.toISOString()} — ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}`);
  lines.push(`${machine.postgres.split(' on ')[0]} (shared_buffers ${machine.postgresSettings.shared_buffers}); NATS ${nats.private ? `private ${nats.version ?? 'nats-server'}` : `shared ${nats.url}`}`);
  lines.push(`${P.rows.toLocaleString('en-US')} ledger entries, ${P.entriesPerTx} per transaction hash, ${seed.benchSourceShareSampled}% (sampled) credited to the bench tenant's source`);
  lines.push('');
  lines.push(table(rows, ['scenario', 'target', 'conc', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'rows', 'errors', 'box %', 'others %']));
  lines.push('');
  lines.push(table(ingestRows, ['ingestion (mev.captured.1)', 'how', 'events', 'seconds', 'events/s', 'box %', 'others %']));
  lines.push('');
  lines.push(
    `by-tx p99 (target <= ${TARGETS.byTxP99Ms} ms): concurrency 1 ${s.byTxC1.p99Ms} ms ${verdict(targets.byTxP99Concurrency1.met)}, unknown hash ${s.byTxUnknown.p99Ms} ms ${verdict(targets.byTxP99Unknown.met)}; concurrency ${P.concurrency} ${s.byTxCN.p99Ms} ms (informational, ${verdict(targets.byTxP99Concurrency16.met)})`,
  );
  lines.push(
    `by-tx plan uses entries_reference_idx: tenant's hash ${yes(plan.usesReferenceIndex)} (${plan.executionMs} ms), unknown hash ${yes(results.plans.byTxUnknownHash.usesReferenceIndex)} (${results.plans.byTxUnknownHash.executionMs} ms): ${verdict(targets.byTxUsesReferenceIndex.met)}`,
  );
  lines.push(`ingestion (target >= ${TARGETS.ingestEventsPerSec.toLocaleString('en-US')} events/s applied): ${ing.applyEventsPerSec?.toLocaleString('en-US') ?? '–'} events/s ${verdict(targets.ingestEventsPerSec.met)}; ${ing.insertStatements} insert statements, ${ing.entriesCreated} entries created, ${ing.deadLettered} dead-lettered, consumer left ${ing.consumerAfter.numPending} pending / ${ing.consumerAfter.numAckPending} unacked`);
  lines.push(
    `seed: ${seed.rows.toLocaleString('en-US')} rows in ${seed.totalSeconds} s (${seed.rowsPerSecondOverall.toLocaleString('en-US')} rows/s overall) = insert ${seed.insertSeconds} s + index rebuild ${seed.indexRebuildSeconds} s + VACUUM (ANALYZE) ${seed.vacuumAnalyzeSeconds} s + CHECKPOINT ${seed.checkpointSeconds} s (indexes: ${seed.indexStrategy}); schema as migrated: ${yes(seed.schemaAsMigrated)}`,
  );
  lines.push(`sizes: table ${seed.sizes.heap}, all indexes ${seed.sizes.all_indexes}, entries_reference_idx ${seed.sizes.reference_idx}`);
  lines.push(`CPU, % of one core: by tx at concurrency ${P.concurrency}: ${fmtCpu(s.byTxCN.cpuPercentOfOneCore)}`);
  lines.push(`                    ingestion apply: ${fmtCpu(ing.cpuPercentOfOneCore)}`);
  const issues = Object.entries(results.childLogs)
    .filter(([, v]) => v.warn + v.error > 0)
    .map(([k, v]) => `${k} ${v.error} error / ${v.warn} warn`);
  lines.push(`child logs: ${issues.length ? issues.join(', ') + ' (samples in the JSON)' : 'no warnings or errors'}`);
  for (const f of results.startFailures) lines.push(`start-up failure (not the payout service; started again): ${f.app} attempt ${f.attempt} exited ${f.exit}: ${f.reason}`);
  if (errors > 0) {
    lines.push(`ERRORS: ${errors}:`);
    for (const [name, r] of Object.entries(s)) if (r.errors) lines.push(`  ${name}: ${JSON.stringify(r.errorsByKind)} e.g. ${r.errorSamples[0]}`);
    for (const p of ing.problems) lines.push(`  ingestion: ${p}`);
  }
  lines.push(`load average at start ${machine.loadAverageAtStart.join(' ')}, at end ${os.loadavg().map((v) => round(v, 2)).join(' ')} (${machine.cpus} cores); box % = whole machine busy during the measured part, others % = what this stack's processes do not explain (% of one core)`);
  lines.push(`total ${round(totalSeconds, 1)} s`);
  return { text: lines.join('\n'), targets, errors };
}

// ---------------------------------------------------------------- run

const t0 = performance.now();
await run.complete(async () => {
  const out = await main();
  const totalSeconds = (performance.now() - t0) / 1000;
  const { text, targets, errors } = report(out, totalSeconds);
  const json = {
    benchmark: 'payouts',
    startedAt: startedAt.toISOString(),
    totalSeconds: round(totalSeconds, 1),
    command: 'npm run bench:payouts',
    machine: out.machine,
    parameters: {
      ...P,
      database: dbName,
      natsUrl: out.nats.url,
      privateNats: out.nats.private,
      benchSource: BENCH_SOURCE,
      gatewayEnv: { RATE_LIMIT_PER_SECOND: 1000000, RATE_LIMIT_BURST: 1000000, LOG_FORMAT: 'json', GATEWAY_DB_POOL_SIZE: env.GATEWAY_DB_POOL_SIZE ?? '10 (default)', REQUEST_TIMEOUT_MS: env.REQUEST_TIMEOUT_MS ?? '5000 (default)' },
      payoutServiceEnv: { PAYOUT_DB_POOL_SIZE: env.PAYOUT_DB_POOL_SIZE ?? '20 (default)', INGEST_BATCH: env.INGEST_BATCH ?? '500 (default)' },
      seedMix: {
        sources: `${P.benchSharePct}% of transactions ${BENCH_SOURCE} (tenant ${TENANT}), the rest bench-other-0..${P.otherSources - 1} (registered to tenant ${ADMIN_TENANT})`,
        chains: '60% chain 1 (70% ETH, 30% USDC), 25% chain 56 (BNB), 15% chain 137 (POL)',
        generatedBySourceId: '20% of transactions',
        status: 'PENDING',
        ids: 'UUIDv7 from a millisecond timestamp spread over the 30 days before the run',
      },
      ingestEvent: { subject: `mev.captured.${INGEST_CHAIN}`, sourceId: BENCH_SOURCE, perTxHash: P.entriesPerTx, msgID: 'the event id' },
    },
    targets,
    errors,
    scenarios: out.results.scenarios,
    seed: out.results.seed,
    ingest: out.results.ingest,
    plans: out.results.plans,
    childLogs: out.results.childLogs,
    startFailures: out.results.startFailures,
    stackWarmup: out.results.stackWarmup ?? null,
  };
  return { path: RESULTS, json, text, errors, targetsMet: Object.values(targets).every((t) => t.met || t.informational) };
});
