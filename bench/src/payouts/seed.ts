// Seeding the ledger, the repository's SQL on its own, and small figures helpers.
import { readFileSync } from 'node:fs';
import { CpuFigures, Figures, RepositoryClass, captureRepositorySql, cpuMeter, fmtRun, ident, log, percentile, round, shuffle } from '../harness/index.js';
import { BENCH_SOURCE, P, phaseLimitMs, run, secondsSince, startedAt, step } from './context.js';
import type pg from 'pg';

// ---------------------------------------------------------------- seeding

// Row g (0-based) belongs to transaction k = g / 3. Per transaction (from hashes of k): the
// reference (0x + 64 hex), the source (BENCH_SOURCE for benchSharePct % of transactions, else one
// of `otherSources` others), the chain and the asset. Per row: a UUIDv7 id, time-ordered with g
// (version 7, variant 10) and older than the run, a random-looking event id, an amount.
// hashint8extended (not md5: 5x cheaper), and OFFSET 0 so that the planner does not inline the
// subqueries and compute each hash again wherever its column is used.
export const SEED_SQL = `
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
export async function schemaFingerprint(db: pg.Pool) {
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

export async function seed(db: pg.Pool, otherTenantId: string) {
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
  const figures: Figures = { rows: P.rows, chunk: P.seedChunk, indexStrategy: P.seedIndexes, entriesPerTx: P.entriesPerTx, benchSharePct: P.benchSharePct };

  const conn = await db.connect();
  try {
    // Session settings of the bench's own superuser connection only; nothing changes on the server.
    await conn.query(`SET maintenance_work_mem = '1GB'`);
    await conn.query(`SET synchronous_commit = off`);
    let secondary: any[] = [];
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
      log(
        `  inserted ${(to + 1).toLocaleString('en-US')} / ${P.rows.toLocaleString('en-US')} (${s.toFixed(1)} s, ${Math.round((to + 1) / s).toLocaleString('en-US')} rows/s)`,
      );
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
    log(
      `  VACUUM (ANALYZE) ${figures.vacuumAnalyzeSeconds} s, CHECKPOINT ${figures.checkpointSeconds} s (kernel dirty pages after it: ${figures.dirtyKiBAfterCheckpoint} KiB)`,
    );
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
export async function sampleHashes(db: pg.Pool) {
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

export async function explain(db: pg.Pool, LedgerRepository: RepositoryClass, call: (repo: any) => Promise<unknown>) {
  const { sql, params } = await captureRepositorySql(LedgerRepository, call, { rows: [{ json: '[]' }] });
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  const text = rows.map((r) => r['QUERY PLAN']).join('\n');
  const exec = /Execution Time: ([\d.]+) ms/.exec(text);
  return { sql, params, usesReferenceIndex: /entries_reference_idx/.test(text), executionMs: exec ? Number(exec[1]) : null, plan: text };
}

/** `P.readRequests` repository queries one after another on one connection, timing each round trip. */
export async function sqlRun(
  label: string,
  db: pg.Pool,
  LedgerRepository: RepositoryClass,
  call: (repo: any) => Promise<unknown>,
  check: (...answer: any[]) => string | null,
) {
  step(`${label}: ${P.warmup} warm-up + ${P.readRequests} queries at concurrency 1`);
  const rowsSeen: any[] = [];
  const order: any[] = [];
  const run = async (n: any, latencies: any) => {
    let done = 0;
    let errors = 0;
    const errorSamples: any[] = [];
    const started = performance.now();
    const limit = started + phaseLimitMs();
    for (let i = 0; i < n && performance.now() < limit; i++) {
      const { sql, params } = await captureRepositorySql(LedgerRepository, call, { rows: [{ json: '[]' }] });
      const t0 = performance.now();
      let wrong: any = null;
      try {
        const json = (await db.query(sql, params)).rows[0].json;
        const list = JSON.parse(json);
        wrong = check(list, params);
        if (latencies) rowsSeen.push(list.length);
      } catch (err) {
        wrong = (err as any).message;
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
  const out: Figures = {
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
export function withOthers(cpu: CpuFigures) {
  if (!cpu?.machine) return cpu;
  const ours = Object.entries<any>(cpu)
    .filter(([k, v]) => k !== 'machine' && typeof v === 'number')
    .reduce((a, [, v]) => a + v, 0);
  cpu.machine.othersPercentOfOneCore = Math.max(0, round(cpu.machine.busyPercentOfAllCores * cpu.machine.cores - ours, 0)!);
  return cpu;
}

/** Dirty page cache (kB) from /proc/meminfo; null where there is none. */
export function dirtyKiB() {
  try {
    return Number(/^Dirty:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? NaN) || 0;
  } catch {
    return null;
  }
}

/** The `n` slowest of `latencies` with their position in the run (0 = first measured request). */
export function slowest(latencies: Float64Array | number[], n = 20) {
  return [...latencies.entries()]
    .filter(([, ms]) => ms !== undefined)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([at, ms]) => ({ at, ms: round(ms, 2) }));
}

export function meanOf(list: number[]) {
  if (list.length === 0) return null;
  return { mean: round(list.reduce((a, b) => a + b, 0) / list.length, 2), min: Math.min(...list), max: Math.max(...list) };
}
