// Seeding, plans and the database's own share of the reads.
import { randomBytes } from 'node:crypto';
import { BenchNats, Figures, RepositoryClass, captureRepositorySql, fmtRun, hostInfo, log, percentile, round } from '../harness/index.js';
import { getAddress } from 'ethers';
import { IntentsRepo, P, SEED_MIX, TOKEN, phaseLimitMs, run, startedAt, step } from './context.js';
import type pg from 'pg';

// ---------------------------------------------------------------- seeding

export const SEED_SQL = `
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

export async function seed(db: pg.Pool, tenantId: string) {
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
  const { rows } = await db.query(`SELECT status, count(*)::int AS n FROM intent.intents WHERE tenant_id = $1 GROUP BY status ORDER BY n DESC`, [tenantId]);
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
export const SEARCH_ROWS = [{ intents: '[]', more_after: null }];

/** EXPLAIN (ANALYZE, BUFFERS) of exactly what `call(repository)` sends, run as the superuser. */
export async function explain(db: pg.Pool, IntentsRepository: RepositoryClass, call: (repo: IntentsRepo) => Promise<unknown>) {
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

// ---------------------------------------------------------------- the database alone

const rowsSeenSql: number[] = [];

/** Runs `P.readRequests` repository queries one after another on `db`, timing each round trip. */
export async function sqlRun(label: string, db: pg.Pool, IntentsRepository: RepositoryClass, call: (repo: IntentsRepo) => Promise<unknown>) {
  step(`${label}: ${P.readRequests} queries at concurrency 1`);
  const run = async (n: any, latencies: any) => {
    let done = 0;
    let errors = 0;
    const errorSamples: any[] = [];
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
        if (errorSamples.length < 5) errorSamples.push((err as any).message);
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
  const out: Figures = {
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
    rowsPerAnswer: rowsSeenSql.length
      ? { mean: round(rowsSeenSql.reduce((a, b) => a + b, 0) / rowsSeenSql.length, 1), min: Math.min(...rowsSeenSql), max: Math.max(...rowsSeenSql) }
      : null,
  };
  log(`  ${fmtRun(out)}`);
  return out;
}

/** The smallest UUIDv7 of a millisecond: every seeded id is below the bench's start. */
export function uuidFloor(ms: number) {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

export async function machineInfo(db: pg.Pool, nats: BenchNats) {
  const q = async (sql: any) => (await db.query(sql)).rows[0];
  const settings: Figures = {};
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
