// `npm run bench:cluster`: the suite on a local 3-node NATS cluster (R3 streams) under create
// load and MEV-capture publishing; kill -9 the INTENT_EVENTS leader, restart it, kill -9 the
// MEV_CAPTURE leader for good. Writes bench/results/cluster.json: acknowledged creates lost,
// events lost/duplicated/reordered, and per fault the longest stretch without a successful
// create and the p99 create latency in the 10 s after it. Bounded: a few minutes, loopback only.
// CLUSTER_STEADY_S (default 15), CLUSTER_DOWN_S (10), CLUSTER_CREATORS (4), CLUSTER_MEV_PER_S (100).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runClusterFaults } from '@tradeinfra/test-support';
import { table } from '../harness/report.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const int = (name: string, fallback: number, max: number) => Math.min(max, Math.max(1, Number(process.env[name] ?? fallback) || fallback));
const parameters = {
  creators: int('CLUSTER_CREATORS', 4, 16),
  mevPerSecond: int('CLUSTER_MEV_PER_S', 100, 500),
  intentReplicas: 2,
  steadyMs: int('CLUSTER_STEADY_S', 15, 120) * 1000,
  downMs: int('CLUSTER_DOWN_S', 10, 120) * 1000,
  // Cut a node off too (network namespaces; as root). CLUSTER_PARTITION=false to skip.
  partition: process.env.CLUSTER_PARTITION !== 'false',
};

const report = await runClusterFaults({ root: ROOT, ...parameters, log: (line) => process.stderr.write(`▸ ${line}\n`) });
const out = join(ROOT, 'bench', 'results', 'cluster.json');
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(out, JSON.stringify({ bench: 'cluster', at: new Date().toISOString(), parameters, report }, null, 2) + '\n');

const r = report;
process.stdout.write(
  [
    `${r.creates.acked} creates acknowledged in ${(r.durationMs / 1000).toFixed(1)} s (p50 ${r.creates.p50Ms} ms, p99 ${r.creates.p99Ms} ms): ${r.creates.lost} lost; ` +
      `${r.creates.retriedWithKey} sent again with their Idempotency-Key, ${r.creates.idempotencyMismatches} gave another intent`,
    `answers: ${r.answers.status503} × 503 (${r.answers.status503WithoutRetryAfter} without Retry-After), other failures ${JSON.stringify(r.answers.other)}`,
    ...(r.partitionSkipped ? [`partition not run: ${r.partitionSkipped}`] : []),
    `outbox: ${r.outbox.events} events, ${r.outbox.lost} lost, ${r.outbox.duplicated} duplicated, ${r.outbox.intentsOutOfOrder} intents out of order`,
    `MEV capture: ${r.mevCapture.acked} acknowledged, ${r.mevCapture.ledgerEntries} ledger entries, ${r.mevCapture.lost} lost, ${r.mevCapture.duplicated} duplicated (${r.mevCapture.publishRetries} publish retries)`,
    '',
    table(
      r.faults.map((f) => [f.fault, f.node, f.at, f.longestGapMs, f.creates, f.p99CreateMs, f.maxCreateMs, f.unavailable, f.otherFailures]),
      ['fault', 'node', 'at ms', 'longest gap ms', 'creates (10 s)', 'p99 ms', 'max ms', '503s', 'other'],
    ),
    '',
    'clients on the node at each fault:',
    ...r.faults.map((f) => `  ${f.fault}: ${f.clients.length ? f.clients.sort().join(', ') : 'none'}`),
    `streams after: ${Object.entries(r.streams)
      .map(([name, s]) => `${name} R${s.replicas} leader ${s.leader}`)
      .join(', ')}`,
    `written to ${out}`,
    '',
  ].join('\n'),
);
process.exit(r.creates.lost + r.outbox.lost + r.outbox.duplicated + r.outbox.intentsOutOfOrder + r.mevCapture.lost + r.mevCapture.duplicated > 0 ? 1 : 0);
