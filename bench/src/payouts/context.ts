// Parameters (env), targets and the run of the payouts bench, shared by its parts.
import { withDefaults } from '../../../scripts/lib.mjs';
import { BenchRun, envInt, resultsPath, runNodeScript } from '../harness/index.js';

export const RESULTS = resultsPath('payouts');

// ---------------------------------------------------------------- parameters

export const P = {
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
export const TARGETS = { byTxP99Ms: 5, ingestEventsPerSec: 5000 };
export const BENCH_SOURCE = 'bench-src';
export const TENANT = 'bench';
export const ADMIN_TENANT = 'bench-admin';
export const INGEST_CHAIN = 1;

export const env = withDefaults(process.env);
export const startedAt = new Date();
export const run = new BenchRun({ name: 'payouts', env, maxSeconds: P.maxSeconds, applicationName: 'bench-payouts' });
export const { tmp, children } = run;

// ---------------------------------------------------------------- small helpers

export const pool = (database: string, max?: number) => run.pool(database, max);
export const runNode = (script: string, args: string[], childEnv: NodeJS.ProcessEnv) => runNodeScript(script, args, childEnv);
export const step = (title: string) => run.step(title);

export function phaseLimitMs() {
  return P.phaseMaxSeconds * 1000;
}

export function secondsSince(t0: number) {
  return (performance.now() - t0) / 1000;
}

/** The smallest UUIDv7 of a millisecond. */
export function uuidFloor(ms: number) {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}
