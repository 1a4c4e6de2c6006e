// The table printed on stdout and the findings.
import { BenchNats, Figures, fmtCpu, round, runCells, table, yes } from '../harness/index.js';
import { P, SCENARIOS, TARGETS, startedAt } from './context.js';

// ---------------------------------------------------------------- report

export function report({ results, machine, nats }: { results: Figures; machine: Figures; nats: BenchNats }, totalSeconds: number) {
  const s = results.scenarios;
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  const suiteVsBare = s.createSuite.vsBare;
  const suiteTargets = {
    suiteCreateVsBare: {
      ratio: suiteVsBare,
      suiteReqPerSec: s.createSuite.reqPerSec,
      bareReqPerSec: s.createBare.reqPerSec,
      target: `>= ${TARGETS.suiteVsBare}`,
      met: suiteVsBare !== null && suiteVsBare >= TARGETS.suiteVsBare,
    },
  };
  const suiteLines = [
    `full suite create (4 services, npm start's defaults, ${s.createSuite.apiKeys} API keys) = ${s.createSuite.reqPerSec}/s vs bare node:http + pg ${s.createBare.reqPerSec}/s = ${suiteVsBare} (target >= ${TARGETS.suiteVsBare}): ${verdict(suiteTargets.suiteCreateVsBare.met)}; rows suite ${fmtRows(s.createSuite)}, bare ${fmtRows(s.createBare)}, bare + outbox ${fmtRows(s.createBareWithOutbox)}; outbox drained in ${s.createSuite.outboxDrainSeconds ?? '> 30'} s`,
    `  (against the bare insert of the intent row and its outbox row, ${s.createBareWithOutbox.reqPerSec}/s: ${s.createSuite.vsBareWithOutbox})`,
    `CPU ms per create (load generator not counted): full suite ${fmtCpuMs(s.createSuite.cpuMsPerRequest)}; bare ${fmtCpuMs(s.createBare.cpuMsPerRequest)}; bare + outbox ${fmtCpuMs(s.createBareWithOutbox.cpuMsPerRequest)}`,
    `CPU during create, % of one core: full suite: ${fmtCpu(s.createSuite.cpuPercentOfOneCore)}`,
    `                                         bare: ${fmtCpu(s.createBare.cpuPercentOfOneCore)}`,
    `                             bare with outbox: ${fmtCpu(s.createBareWithOutbox.cpuPercentOfOneCore)}`,
  ];
  const suiteRows = [
    ['create  POST /v1/intent', 'full suite', s.createSuite],
    ['create  POST /v1/intent', 'bare http+pg', s.createBare],
    ['create  POST /v1/intent', 'bare + outbox', s.createBareWithOutbox],
  ];
  if (!SCENARIOS.all) return reportText({ results, machine, nats }, totalSeconds, suiteRows, suiteLines, suiteTargets);
  const ratio = s.createBaseline.reqPerSec > 0 ? round((s.createGateway.reqPerSec / s.createBaseline.reqPerSec) * 100, 1) : null;
  const targets = {
    ...suiteTargets,
    gatewayCreateVsBaseline: { percent: ratio, target: `>= ${TARGETS.gatewayVsBaselinePct}%`, met: ratio !== null && ratio >= TARGETS.gatewayVsBaselinePct },
    batchCreateVsSingle: {
      factor: s.createGatewayBatch.factorVsSingle,
      intentsPerSecBatch: s.createGatewayBatch.intentsPerSec,
      intentsPerSecSingle: s.createGatewayBatch.singleIntentsPerSec,
      target: `>= ${TARGETS.batchVsSingleFactor}x`,
      met: s.createGatewayBatch.factorVsSingle !== null && s.createGatewayBatch.factorVsSingle >= TARGETS.batchVsSingleFactor,
    },
    search1WalletP99: { ms: s.search1.p99Ms, target: `<= ${TARGETS.searchP99Ms} ms`, met: s.search1.p99Ms <= TARGETS.searchP99Ms },
    search10WalletsP99: { ms: s.search10.p99Ms, target: `<= ${TARGETS.searchP99Ms} ms`, met: s.search10.p99Ms <= TARGETS.searchP99Ms },
    searchUsesIndex: {
      oneWallet: results.plans.search1Wallet.usesSearchIndex,
      tenWallets: results.plans.search10Wallets.usesSearchIndex,
      met: results.plans.search1Wallet.usesSearchIndex && results.plans.search10Wallets.usesSearchIndex,
    },
  };
  const rows = [
    ...suiteRows,
    ['create  POST /v1/intent', 'gateway', s.createGateway],
    ['create  POST /v1/intent', 'baseline', s.createBaseline],
    [`batch   POST /v1/intents (${P.batchSize} a request)`, `>= ${TARGETS.batchVsSingleFactor}x single`, s.createGatewayBatch],
    ['fetch   GET /v1/intent/:id', 'gateway', s.fetchGatewayC1],
    ['fetch   GET /v1/intent/:id', 'gateway', s.fetchGatewayCN],
    ['fetch   GET /v1/intent/:id', 'baseline', s.fetchBaselineC1],
    ['fetch   GET /v1/intent/:id', 'baseline', s.fetchBaselineCN],
    ['search  1 wallet', 'gateway', s.search1],
    ['search  10 wallets', 'gateway', s.search10],
    ['search  10 wallets, next page', 'gateway', s.search10Page2],
    ['search  1 wallet', 'gateway', s.search1CN],
    ['search  1 wallet', 'SQL only', s.search1Sql],
    ['search  10 wallets', 'SQL only', s.search10Sql],
  ];
  const lines = [...suiteLines];
  lines.push(`gateway create throughput = ${ratio}% of baseline (target >= ${TARGETS.gatewayVsBaselinePct}%): ${verdict(targets.gatewayCreateVsBaseline.met)}`);
  lines.push(
    `batch create through the gateway: ${s.createGatewayBatch.intentsPerSec} intents/s (${s.createGatewayBatch.reqPerSec} req/s of ${P.batchSize}) vs single ${s.createGateway.reqPerSec} intents/s = ${s.createGatewayBatch.factorVsSingle}x (target >= ${TARGETS.batchVsSingleFactor}x): ${verdict(targets.batchCreateVsSingle.met)}; rows ${fmtRows(s.createGatewayBatch)}, outbox drained in ${s.createGatewayBatch.outboxDrainSeconds ?? '> 60'} s`,
  );
  lines.push(
    `search p99 on ${P.seedRows.toLocaleString('en-US')} rows: 1 wallet ${s.search1.p99Ms} ms, 10 wallets ${s.search10.p99Ms} ms (target <= ${TARGETS.searchP99Ms} ms): ${verdict(targets.search1WalletP99.met && targets.search10WalletsP99.met)}`,
  );
  lines.push(
    `search plan uses intents_search_idx: 1 wallet ${yes(results.plans.search1Wallet.usesSearchIndex)} (${results.plans.search1Wallet.executionMs} ms), 10 wallets ${yes(results.plans.search10Wallets.usesSearchIndex)} (${results.plans.search10Wallets.executionMs} ms), next page ${results.plans.search10WalletsNextPage ? `${yes(results.plans.search10WalletsNextPage.usesSearchIndex)} (${results.plans.search10WalletsNextPage.executionMs} ms)` : 'not run'}`,
  );
  lines.push(
    `seed: ${results.seed.rows.toLocaleString('en-US')} intents over ${results.seed.wallets.toLocaleString('en-US')} wallets in ${results.seed.insertSeconds} s (${results.seed.rowsPerSecond.toLocaleString('en-US')} rows/s) + VACUUM (ANALYZE) ${results.seed.vacuumAnalyzeSeconds} s; table ${results.seed.sizes.heap}, intents_search_idx ${results.seed.sizes.search_idx}`,
  );
  lines.push(
    `outbox after the gateway create load: ${s.createGateway.outboxBacklogAtEnd} unpublished, drained in ${s.createGateway.outboxDrainSeconds ?? '> 30'} s; rows inserted (warm-up + measured): gateway ${fmtRows(s.createGateway)}, baseline ${fmtRows(s.createBaseline)}`,
  );
  lines.push(`CPU during create, % of one core: gateway run: ${fmtCpu(s.createGateway.cpuPercentOfOneCore)}`);
  lines.push(`                                    baseline run: ${fmtCpu(s.createBaseline.cpuPercentOfOneCore)}`);
  return reportText({ results, machine, nats }, totalSeconds, rows, lines, targets);
}

/** The table of `rows` (scenarios not run are left out), then `findings`, the child logs, the failed requests and the total time. */
export function reportText(
  { results, machine }: { results: Figures; machine: Figures; nats?: BenchNats },
  totalSeconds: number,
  rows: unknown[][],
  findings: string[],
  targets: Figures,
) {
  const s = results.scenarios;
  const errors = Object.values<any>(s).reduce((n, r) => n + r.errors, 0);
  const cells = rows.filter(([, , r]: any) => r).map(([name, target, r]: any) => [name, target, ...runCells(r)]);
  const lines: any[] = [];
  lines.push('');
  lines.push(`Intent API benchmark — ${startedAt.toISOString()} — ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}`);
  lines.push(
    `${machine.postgres.split(' on ')[0]} (shared_buffers ${machine.postgresSettings.shared_buffers}); NATS ${machine.nats.private ? `private ${machine.nats.version ?? 'nats-server'}` : `shared ${machine.nats.url}`}`,
  );
  lines.push('');
  lines.push(table(cells, ['scenario', 'target', 'conc', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'rows', 'errors']));
  lines.push('');
  lines.push(...findings);
  const issues = Object.entries<any>(results.childLogs)
    .filter(([, v]) => v.warn + v.error > 0)
    .map(([k, v]) => `${k} ${v.error} error / ${v.warn} warn`);
  lines.push(`child logs: ${issues.length ? issues.join(', ') + ' (samples in the JSON)' : 'no warnings or errors'}`);
  if (errors > 0) {
    lines.push(`ERRORS: ${errors} failed requests:`);
    for (const [name, r] of Object.entries<any>(s)) if (r.errors) lines.push(`  ${name}: ${JSON.stringify(r.errorsByKind)} e.g. ${r.errorSamples[0]}`);
  }
  lines.push(`total ${round(totalSeconds, 1)} s`);
  return { text: lines.join('\n'), targets, errors };
}

export function fmtCpuMs(ms: Record<string, number>) {
  const { total, ...procs } = ms;
  const list = Object.entries<any>(procs)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `${total} (${list})`;
}

export function fmtRows(r: Figures) {
  const expected = r.rowsExpected - r.errors;
  return r.rowsInserted === expected ? `${r.rowsInserted}` : `${r.rowsInserted} (MISMATCH: expected ${expected})`;
}
