// Figures over the launches of one size and mode.
import { Figures, round } from '../harness/index.js';
import { stats } from './context.js';
import { LaunchRun } from './launch-once.js';

// ---------------------------------------------------------------- summary and report

export function summarize(size: number, runs: LaunchRun[], mode = 'block'): Figures {
  const ok = runs.filter((r) => r.errors.length === 0);
  const cpu: Figures = {};
  const box: Array<{ busy: number; others: number }> = [];
  for (const r of runs) {
    const { machine, ...procs } = r.cpuPercentOfOneCore ?? {};
    for (const [k, v] of Object.entries<any>(procs)) {
      if (typeof v === 'number') (cpu[k] ??= []).push(v);
    }
    if (machine) {
      const ours = Object.values<any>(procs).reduce((a, v) => a + (v ?? 0), 0);
      box.push({ busy: machine.busyPercentOfAllCores, others: Math.max(0, machine.busyPercentOfAllCores * machine.cores - ours) });
    }
  }
  const mean = (v: number[]) => (v.length ? round(v.reduce((a, b) => a + b, 0) / v.length, 0) : null);
  const withRpc = runs.filter((r) => r.rpc);
  return {
    size,
    mode,
    runs: runs.length,
    runsWithErrors: runs.length - ok.length,
    sinceSeenMs: stats(runs.map((r) => r.sinceSeenMs)),
    storedMs: stats(runs.map((r) => r.storedMs)),
    recognitionSimMs: stats(runs.map((r) => r.recognitionSimMs)),
    roundMs: stats(runs.map((r) => r.roundMs)),
    mineToLastBuyInMempoolMs: stats(runs.map((r) => r.observedMs)),
    detectionMs: stats(runs.map((r) => r.detectionMs)),
    seenToFirstSignRequestMs: stats(runs.map((r) => r.phases?.seenToFirstSignRequestMs)),
    // A pending launch's probe may run behind it in its own simulation: then no simulation of its own.
    probeMs: stats(runs.filter((r) => (r.simulations?.count ?? 0) > 0).map((r) => r.simulations?.totalMs)),
    probesBehindLaunch: runs.filter((r) => r.mode !== 'block' && r.simulations?.count === 0).length,
    probeStartMs: stats(runs.map((r) => r.phases?.probeStartMs)),
    probeEndToFirstSignRequestMs: stats(runs.map((r) => (r.phases?.probeEndMs == null ? null : r.phases.seenToFirstSignRequestMs - r.phases.probeEndMs))),
    signingWindowMs: stats(runs.map((r) => r.phases?.signingWindowMs)),
    lastSignatureToSubmittedMs: stats(runs.map((r) => r.phases?.lastSignatureToSubmittedMs)),
    webhookHandlerMs: stats(runs.map((r) => r.webhook?.handlerMs.p50)),
    webhookHandlerP99Ms: stats(runs.map((r) => r.webhook?.handlerMs.p99)),
    webhookSignMsP50: stats(runs.map((r) => r.webhook?.signMs.p50)),
    webhookSignCpuMsPerLaunch: stats(runs.map((r) => r.webhook?.signCpuMsTotal)),
    pendingBlockMs: stats(runs.map((r) => r.pendingBlockMs)),
    mineBuysMs: stats(runs.map((r) => r.mineBuysMs)),
    outcomesRecordedMs: stats(runs.map((r) => r.outcomesRecordedMs)),
    submitted: runs.reduce((a, r) => a + (r.service?.submitted ?? 0), 0),
    failed: runs.reduce((a, r) => a + (r.service?.failed ?? 0), 0),
    deferred: runs.reduce((a, r) => a + (r.service?.deferred ?? 0), 0),
    completed: runs.reduce((a, r) => a + (r.completed ?? 0), 0),
    intents: runs.length * size,
    retries: runs.reduce((a, r) => a + r.retries.length, 0),
    cpuPercentOfOneCoreMean: Object.fromEntries(Object.entries<any>(cpu).map(([k, v]) => [k, mean(v)])),
    wholeBoxBusyPercentMean: mean(box.map((b) => b.busy)),
    othersPercentOfOneCoreMean: mean(box.map((b) => b.others)),
    rpc: withRpc.length
      ? {
          stateReadsMs: stats(withRpc.map((r) => r.rpc.stateReadsMs)),
          submissionMs: stats(withRpc.map((r) => r.rpc.submissionMs)),
          onPathNodeMs: stats(withRpc.map((r) => r.rpc.onPathNodeMs)),
          simulationNodeMs: stats(withRpc.map((r) => r.rpc.simulationService.nodeMs)),
          simulationRoundTrips: stats(withRpc.map((r) => r.rpc.simulationService.requests)),
          waitingMs: stats(withRpc.map((r) => r.rpc.whileWaiting.ms)),
          resendsPerBuy: stats(withRpc.map((r) => r.rpc.whileWaiting.resendsPerBuy)),
          waitingNodeMs: stats(withRpc.map((r) => r.rpc.whileWaiting.nodeMs)),
        }
      : null,
    boughtButNotCompleted: runs.reduce((a, r) => a + Object.values<any>(r.notCompleted?.boughtOnChainAnyway ?? {}).reduce((x, y) => x + y, 0), 0),
    notCompletedByStatus: runs.reduce(
      (acc, r) => {
        for (const [k, v] of Object.entries<any>(r.notCompleted?.byStatus ?? {})) acc[k] = (acc[k] ?? 0) + v;
        return acc;
      },
      {} as Record<string, number>,
    ),
  };
}
