// Intent API benchmark: `npm run bench:intents` (which installs, builds and migrates first).
// Runs on its own database (ti_bench_<pid>_<random>, dropped at the end) and, when a
// nats-server binary is available, its own NATS server, so it never touches dev data and never
// shares the `intent-service` queue group with a running `npm start`.
//
//   0. create through the full suite as `npm start` runs it (four services, request logs on,
//      source maps, one API key per client) against a bare node:http + pg insert of the same row
//      (bench/src/intents/bare-server.ts), in the same run (target: at least 0.60); BENCH_SCENARIOS=suite
//      runs this step alone
//   1. baseline create load  (bench/src/intents/baseline-server.ts: Express + pg, the same SQL, nothing else)
//   2. gateway create load   (gateway → NATS → intent service → Postgres), with outbox drain time
//   2b. gateway batch create (POST /v1/intents, BENCH_BATCH_SIZE intents a request): intents/s
//       against the single creates of step 2, in the same run (target: at least 5×)
//   3. seed BENCH_SEED_ROWS intents in SQL, VACUUM (ANALYZE)
//   4. fetch by id, gateway and baseline, at concurrency 1 and BENCH_CONCURRENCY
//   5. search: 1 wallet, 10 wallets, the next page of a 10-wallet search, 1 wallet under load,
//      and the same 1- and 10-wallet queries straight on Postgres (the database's share)
//   6. EXPLAIN (ANALYZE, BUFFERS) of the repository's search (and fetch) SQL
// Prints a table on stdout and writes bench/results/intents.json. See bench/README.md.
import { gatewayEnvFigures } from '../harness/index.js';
import { P, RESULTS, SCENARIOS, SEED_MIX, SUITE_APPS, TOKEN, env, run, startedAt } from './context.js';
import { report } from './report.js';
import { main } from './scenarios.js';

// ---------------------------------------------------------------- run

const t0 = performance.now();
await run.complete(async () => {
  const out = await main();
  const totalSeconds = (performance.now() - t0) / 1000;
  const { text, targets, errors } = report(out, totalSeconds);
  const json = {
    ...run.resultsHead('intents', { startedAt, totalSeconds, machine: out.machine, nats: out.nats }, P, {
      gatewayEnv: gatewayEnvFigures(env),
      intentServiceEnv: { INTENT_DB_POOL_SIZE: env.INTENT_DB_POOL_SIZE ?? '20 (default)' },
      suite: {
        scenarios: SCENARIOS.all ? 'all' : 'suite',
        apps: SUITE_APPS,
        node: '--enable-source-maps',
        env: {
          LOG_REQUESTS: env.LOG_REQUESTS ?? 'true (npm start)',
          LOG_FORMAT: env.LOG_FORMAT ?? 'pretty (default)',
          NO_COLOR: 1,
          RATE_LIMIT_PER_SECOND: 1000000,
          RATE_LIMIT_BURST: 1000000,
        },
        apiKeys: `${P.concurrency}, one per client (apikey create --tenant bench)`,
        bare: 'bench/src/intents/bare-server.ts: node:http + pg, the intent row (and, bare + outbox, the repository create)',
      },
      baselinePoolSize: Number(env.BASELINE_POOL_SIZE || 20),
      createBody: {
        chainId: 1,
        wallet: `lowercase, random of ${P.createWallets}`,
        tokenAddress: TOKEN,
        bribe: '1000000000000000',
        buyAmount: '100000000000000000 + i',
        expiry: 'now + 3600 s',
      },
      search: { status: 'default (pending)', limit: P.searchLimit, addresses: 'lowercase, random seeded wallets' },
      seedStatusMix: Object.fromEntries(
        SEED_MIX.map(([st, upTo], i) => [st, `${upTo - (i ? SEED_MIX[i - 1][1] : 0)}%`]).concat([['error', `${100 - SEED_MIX.at(-1)![1]}%`]]),
      ),
    }),
    targets,
    errors,
    scenarios: out.results.scenarios,
    seed: out.results.seed,
    plans: out.results.plans,
    childLogs: out.results.childLogs,
  };
  return { path: RESULTS, json, text, errors, targetsMet: Object.values<any>(targets).every((t) => t.met) };
});
