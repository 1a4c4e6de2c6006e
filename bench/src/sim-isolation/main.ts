// Simulation isolation benchmark: `npm run bench:sim-isolation` (apps built first).
//
// One simulation service (apps/simulation-service/dist/main.js) on its own nats-server, reading a
// small scripted JSON-RPC node served by this bench (node.ts: chain 1, Prague rules: no
// per-transaction gas cap, and a block gas limit of 10^12, so the loop below runs until the
// deadline). Measured, over the service's NATS subject:
//   1. a normal 1-call simulation alone (warm): latency percentiles
//   2. the same while an endless-loop simulation runs: each sample sends the loop, waits
//      BENCH_LOOP_HEAD_START_MS (1 s), sends the normal one and times it from its send; the
//      loop's own answer time (bounded by SIM_TIMEOUT_MS) and error are recorded too
// Writes bench/results/sim-isolation.json and prints it.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BenchRun, envInt, log, percentile, resultsPath, ROOT, round, sleep, type Figures } from '../harness/index.js';
import { LOOPER, READER, startScriptedNode, USER } from './node.js';

const P = {
  samples: envInt('BENCH_LOOP_SAMPLES', 3, { max: 100 }),
  aloneSamples: envInt('BENCH_ALONE_SAMPLES', 50, { max: 10_000 }),
  headStartMs: envInt('BENCH_LOOP_HEAD_START_MS', 1000, { min: 0, max: 60_000 }),
  simTimeoutMs: envInt('BENCH_SIM_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
};

interface Simulated {
  ms: number;
  error: { name: string; message: string; details?: unknown } | null;
  response: unknown;
}

const run = new BenchRun({ name: 'simiso', env: process.env, maxSeconds: 600, applicationName: 'bench' });
let nc: NatsConnection | null = null;
let node: http.Server | null = null;
run.onCleanup(async () => {
  await nc?.close();
  node?.closeAllConnections();
  node?.close();
});

/** Starts the scripted node, NATS and the simulation service; a client of the service's subject. */
async function start(): Promise<(body: unknown) => Promise<Simulated>> {
  node = await startScriptedNode();
  const rpcUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  const nats = await run.startNats();
  run.step('starting the simulation service');
  const service = run.children.start('simulation-service', process.execPath, [join(ROOT, 'apps/simulation-service/dist/main.js')], {
    cwd: ROOT,
    env: { ...process.env, NATS_URL: nats.url, RPC_URL_1: rpcUrl, HARDFORK_1: 'prague', SIM_TIMEOUT_MS: String(P.simTimeoutMs), LOG_FORMAT: 'json' },
    readyLine: /listening on/,
    readyTimeoutMs: 60_000,
  });
  await service.ready;
  const client = await connect({ servers: nats.url });
  nc = client;
  return async (body) => {
    const started = performance.now();
    const packet = JSON.stringify({ pattern: 'simulation.simulate', data: { body }, id: randomUUID() });
    const msg = await client.request('simulation.simulate', packet, { timeout: 60_000 });
    const reply = JSON.parse(msg.string()) as { err?: Simulated['error']; response?: unknown };
    return { ms: performance.now() - started, error: reply.err ?? null, response: reply.response ?? null };
  };
}

async function measure(): Promise<Figures> {
  const simulate = await start();
  const normal = { chainId: 1, blockNumber: 100, calls: [{ from: USER, to: READER }] };
  const endless = { chainId: 1, blockNumber: 100, calls: [{ from: USER, to: LOOPER }] };

  run.step(`normal simulation alone: ${P.aloneSamples} samples`);
  for (let i = 0; i < 20; i++) await simulate(normal);
  const alone: number[] = [];
  for (let i = 0; i < P.aloneSamples; i++) {
    const r = await simulate(normal);
    if (r.error) throw new Error(`normal simulation failed: ${JSON.stringify(r.error)}`);
    alone.push(r.ms);
  }
  alone.sort((a, b) => a - b);

  run.step(`normal simulation ${P.headStartMs} ms after an endless loop: ${P.samples} samples`);
  const during: number[] = [];
  const loops: Figures[] = [];
  for (let i = 0; i < P.samples; i++) {
    const loop = simulate(endless);
    await sleep(P.headStartMs);
    const r = await simulate(normal);
    if (r.error) throw new Error(`normal simulation failed: ${JSON.stringify(r.error)}`);
    during.push(r.ms);
    const l = await loop;
    loops.push({ ms: round(l.ms, 0), error: l.error ? { name: l.error.name, message: l.error.message, details: l.error.details } : null });
    log(`sample ${i + 1}: normal ${r.ms.toFixed(1)} ms; loop answered after ${l.ms.toFixed(0)} ms (${l.error?.name ?? 'ok'})`);
  }
  return {
    date: new Date().toISOString(),
    host: { cpus: os.cpus().length, load: os.loadavg().map((l) => round(l, 2)) },
    parameters: { ...P },
    normalAloneMs: { p50: round(percentile(alone, 50), 2), p99: round(percentile(alone, 99), 2), max: round(alone.at(-1), 2) },
    normalDuringLoopMs: during.map((ms) => round(ms, 1)),
    endlessLoopAnswers: loops,
  };
}

await run.complete(async () => {
  const figures = await measure();
  return { path: resultsPath('sim-isolation'), json: figures, text: JSON.stringify(figures, null, 2), errors: 0, targetsMet: true };
});
