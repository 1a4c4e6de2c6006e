// Parameters (env), targets and the run of the intents bench, shared by its parts.
import { withDefaults } from '../../../scripts/lib.mjs';
import { BenchRun, Reply, RequestSpec, envInt, resultsPath, runNodeScript } from '../harness/index.js';

export const RESULTS = resultsPath('intents');

// ---------------------------------------------------------------- parameters

export const P = {
  concurrency: envInt('BENCH_CONCURRENCY', 32, { max: 1024 }),
  createRequests: envInt('BENCH_CREATE_REQUESTS', 5000, { max: 1_000_000 }),
  warmup: envInt('BENCH_WARMUP', 2000, { min: 0, max: 100_000 }),
  readRequests: envInt('BENCH_READ_REQUESTS', 2000, { max: 1_000_000 }),
  seedRows: envInt('BENCH_SEED_ROWS', 1_000_000, { min: 1000, max: 20_000_000 }),
  seedWallets: envInt('BENCH_SEED_WALLETS', 20_000, { min: 10, max: 1_000_000 }),
  // One wallet by default: a bot creates for its own wallet (issue 29's outside measurement).
  createWallets: envInt('BENCH_CREATE_WALLETS', 1, { max: 1_000_000 }),
  suiteRequests: envInt('BENCH_SUITE_REQUESTS', 10_000, { max: 1_000_000 }),
  searchLimit: 100,
  batchSize: envInt('BENCH_BATCH_SIZE', 100, { max: 100 }),
  batchRequests: envInt('BENCH_BATCH_REQUESTS', 300, { max: 100_000 }),
  batchWarmup: envInt('BENCH_BATCH_WARMUP', 30, { min: 0, max: 10_000 }),
  batchConcurrency: envInt('BENCH_BATCH_CONCURRENCY', 8, { max: 256 }),
  phaseMaxSeconds: envInt('BENCH_PHASE_MAX_SECONDS', 60, { max: 3600 }),
  maxSeconds: envInt('BENCH_MAX_SECONDS', 600, { max: 24 * 3600 }),
};
export const TARGETS = { gatewayVsBaselinePct: 40, searchP99Ms: 10, batchVsSingleFactor: 5, suiteVsBare: 0.6 };
/** BENCH_SCENARIOS=suite runs only step 0 (the full suite against the bare server); default: all. */
export const SCENARIOS = (() => {
  const raw = process.env.BENCH_SCENARIOS || 'all';
  if (raw !== 'all' && raw !== 'suite') throw new Error(`BENCH_SCENARIOS must be all or suite (got ${JSON.stringify(raw)})`);
  return { all: raw === 'all' };
})();
/** The four services in scripts/start.mjs's order. */
export const SUITE_APPS = ['intent-service', 'simulation-service', 'payout-service', 'gateway'];
export const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
/** Seeded statuses, cumulative % (the rest is `error`). */
export const SEED_MIX: Array<[string, number]> = [
  ['pending', 70],
  ['completed', 85],
  ['expired', 95],
  ['cancelled', 98],
  ['failed', 99],
];

export const env = withDefaults(process.env);
export const startedAt = new Date();
export const run = new BenchRun({ name: 'intents', env, maxSeconds: P.maxSeconds, applicationName: 'bench' });
export const { tmp, children } = run;

// ---------------------------------------------------------------- small helpers

export const pool = (database: string, max?: number) => run.pool(database, max);
export const runNode = (script: string, args: string[], childEnv: NodeJS.ProcessEnv) => runNodeScript(script, args, childEnv);
export const step = (title: string) => run.step(title);

export function phaseLimitMs() {
  return P.phaseMaxSeconds * 1000;
}

// ---------------------------------------------------------------- NATS

/** The built IntentsRepository, as the bench calls it (its SQL is the product's). */
export interface IntentsRepo {
  search(query: { tenantId: string; wallets: string[]; statuses: string[]; beforeId: string | null; limit: number }): Promise<unknown>;
  findById(tenantId: string, id: string): Promise<unknown>;
}

export type Env = Record<string, string>;
export type Pids = Record<string, number | undefined>;
/** The create requests of one client (its headers), by index. */
export type MakeCreate = (headers: Record<string, string>) => (i: number) => RequestSpec;
/** A reason a create's answer is wrong, or null. */
export type CheckCreate = (res: Reply, i: number) => string | null;
