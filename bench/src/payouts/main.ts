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
import { gatewayEnvFigures } from '../harness/index.js';
import { ADMIN_TENANT, BENCH_SOURCE, INGEST_CHAIN, P, RESULTS, TENANT, env, run, startedAt } from './context.js';
import { report } from './report.js';
import { main } from './scenarios.js';

// ---------------------------------------------------------------- run

const t0 = performance.now();
await run.complete(async () => {
  const out = await main();
  const totalSeconds = (performance.now() - t0) / 1000;
  const { text, targets, errors } = report(out, totalSeconds);
  const json = {
    ...run.resultsHead('payouts', { startedAt, totalSeconds, machine: out.machine, nats: out.nats }, P, {
      benchSource: BENCH_SOURCE,
      gatewayEnv: gatewayEnvFigures(env),
      payoutServiceEnv: { PAYOUT_DB_POOL_SIZE: env.PAYOUT_DB_POOL_SIZE ?? '20 (default)', INGEST_BATCH: env.INGEST_BATCH ?? '500 (default)' },
      seedMix: {
        sources: `${P.benchSharePct}% of transactions ${BENCH_SOURCE} (tenant ${TENANT}), the rest bench-other-0..${P.otherSources - 1} (registered to tenant ${ADMIN_TENANT})`,
        chains: '60% chain 1 (70% ETH, 30% USDC), 25% chain 56 (BNB), 15% chain 137 (POL)',
        generatedBySourceId: '20% of transactions',
        status: 'PENDING',
        ids: 'UUIDv7 from a millisecond timestamp spread over the 30 days before the run',
      },
      ingestEvent: { subject: `mev.captured.${INGEST_CHAIN}`, sourceId: BENCH_SOURCE, perTxHash: P.entriesPerTx, msgID: 'the event id' },
    }),
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
  return { path: RESULTS, json, text, errors, targetsMet: Object.values<any>(targets).every((t) => t.met || t.informational) };
});
