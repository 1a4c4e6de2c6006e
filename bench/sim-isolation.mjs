#!/usr/bin/env node
// Simulation isolation benchmark: `node bench/sim-isolation.mjs` (apps built first).
//
// One simulation service (apps/simulation-service/dist/main.js) on its own nats-server, reading a
// small scripted JSON-RPC node served by this script (chain 1, Prague rules: no per-transaction gas
// cap, and a block gas limit of 10^12, so the loop below runs until the deadline). Measured, over the service's NATS subject:
//   1. a normal 1-call simulation alone (warm): latency percentiles
//   2. the same while an endless-loop simulation runs: each sample sends the loop, waits
//      BENCH_LOOP_HEAD_START_MS (1 s), sends the normal one and times it from its send; the
//      loop's own answer time (bounded by SIM_TIMEOUT_MS) and error are recorded too
// Writes bench/results/sim-isolation.json and prints it.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { BenchRun, envInt, freePort, log, natsServerBinary, percentile, round } from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results', 'sim-isolation.json');
const P = {
  samples: envInt('BENCH_LOOP_SAMPLES', 3, { max: 100 }),
  aloneSamples: envInt('BENCH_ALONE_SAMPLES', 50, { max: 10_000 }),
  headStartMs: envInt('BENCH_LOOP_HEAD_START_MS', 1000, { min: 0, max: 60_000 }),
  simTimeoutMs: envInt('BENCH_SIM_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
};

const USER = '0x00000000000000000000000000000000000000a1';
const READER = '0x00000000000000000000000000000000000000c1';
const LOOPER = '0x00000000000000000000000000000000000000c2';
/** Returns storage slot 1. */
const READ_SLOT_1 = '0x60015460005260206000f3';
/** 1000 JUMPDESTs then PUSH0 JUMP back to 0: ~1 gas per instruction, endless within 10^12 gas. */
const ENDLESS = `0x${'5b'.repeat(1000)}5f56`;
const hex = (n) => `0x${BigInt(n).toString(16)}`;
const word = (n) => `0x${BigInt(n).toString(16).padStart(64, '0')}`;

/** The scripted node: one block (100), three accounts. */
function startNode() {
  const accounts = { [USER]: { balance: 10n ** 18n }, [READER]: { code: READ_SLOT_1, storage: { 1: 5n } }, [LOOPER]: { code: ENDLESS } };
  const answer = ({ method, params }) => {
    const a = accounts[String(params[0]).toLowerCase()] ?? {};
    switch (method) {
      case 'eth_getBlockByNumber':
        return { number: hex(100), hash: word(100_000_003n), timestamp: hex(1_790_000_000), gasLimit: hex(1_000_000_000_000), baseFeePerGas: '0x7', miner: '0x00000000000000000000000000000000000c0ffe', mixHash: word(0), difficulty: '0x0' };
      case 'eth_getBalance':
        return hex(a.balance ?? 0n);
      case 'eth_getTransactionCount':
        return hex(a.nonce ?? 0);
      case 'eth_getCode':
        return a.code ?? '0x';
      case 'eth_getStorageAt':
        return word(a.storage?.[BigInt(params[1]).toString()] ?? 0n);
      default:
        throw Object.assign(new Error(`the method ${method} does not exist`), { code: -32601 });
    }
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const parsed = JSON.parse(body);
      const list = Array.isArray(parsed) ? parsed : [parsed];
      const out = list.map((c) => {
        try {
          return { jsonrpc: '2.0', id: c.id, result: answer(c) };
        } catch (err) {
          return { jsonrpc: '2.0', id: c.id, error: { code: err.code ?? -32000, message: err.message } };
        }
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(parsed) ? out : out[0]));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const run = new BenchRun({ name: 'simiso', env: process.env, maxSeconds: 600, applicationName: 'bench' });
let nc = null;
let node = null;
run.onCleanup(async () => {
  await nc?.close();
  node?.closeAllConnections();
  node?.close();
});

try {
  node = await startNode();
  const rpcUrl = `http://127.0.0.1:${node.address().port}`;
  const natsBin = natsServerBinary();
  if (!natsBin) throw new Error('no nats-server binary (set NATS_SERVER_BIN)');
  const natsPort = await freePort();
  const nats = run.children.start('nats', natsBin, ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', join(run.tmp, 'nats')], {
    readyLine: /Server is ready/,
  });
  await nats.ready;
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  run.step('starting the simulation service');
  const service = run.children.start('simulation-service', process.execPath, [join(ROOT, 'apps/simulation-service/dist/main.js')], {
    cwd: ROOT,
    env: { ...process.env, NATS_URL: natsUrl, RPC_URL_1: rpcUrl, HARDFORK_1: 'prague', SIM_TIMEOUT_MS: String(P.simTimeoutMs), LOG_FORMAT: 'json' },
    readyLine: /listening on/,
    readyTimeoutMs: 60_000,
  });
  await service.ready;
  nc = await connect({ servers: natsUrl });

  const simulate = async (body) => {
    const started = performance.now();
    const packet = JSON.stringify({ pattern: 'simulation.simulate', data: { body }, id: randomUUID() });
    const msg = await nc.request('simulation.simulate', packet, { timeout: 60_000 });
    const reply = JSON.parse(msg.string());
    return { ms: performance.now() - started, error: reply.err ?? null, response: reply.response ?? null };
  };
  const normal = { chainId: 1, blockNumber: 100, calls: [{ from: USER, to: READER }] };
  const endless = { chainId: 1, blockNumber: 100, calls: [{ from: USER, to: LOOPER }] };

  run.step(`normal simulation alone: ${P.aloneSamples} samples`);
  for (let i = 0; i < 20; i++) await simulate(normal);
  const alone = [];
  for (let i = 0; i < P.aloneSamples; i++) {
    const r = await simulate(normal);
    if (r.error) throw new Error(`normal simulation failed: ${JSON.stringify(r.error)}`);
    alone.push(r.ms);
  }
  alone.sort((a, b) => a - b);

  run.step(`normal simulation ${P.headStartMs} ms after an endless loop: ${P.samples} samples`);
  const during = [];
  const loops = [];
  for (let i = 0; i < P.samples; i++) {
    const loop = simulate(endless);
    await new Promise((r) => setTimeout(r, P.headStartMs));
    const r = await simulate(normal);
    if (r.error) throw new Error(`normal simulation failed: ${JSON.stringify(r.error)}`);
    during.push(r.ms);
    const l = await loop;
    loops.push({ ms: round(l.ms, 0), error: l.error ? { name: l.error.name, message: l.error.message, details: l.error.details } : null });
    log(`sample ${i + 1}: normal ${r.ms.toFixed(1)} ms; loop answered after ${l.ms.toFixed(0)} ms (${l.error?.name ?? 'ok'})`);
  }
  const figures = {
    date: new Date().toISOString(),
    host: { cpus: os.cpus().length, load: os.loadavg().map((l) => round(l, 2)) },
    parameters: { ...P },
    normalAloneMs: { p50: round(percentile(alone, 50), 2), p99: round(percentile(alone, 99), 2), max: round(alone.at(-1), 2) },
    normalDuringLoopMs: during.map((ms) => round(ms, 1)),
    endlessLoopAnswers: loops,
  };
  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(JSON.stringify(figures, null, 2));
  log(`written to ${RESULTS}`);
  await run.cleanup();
  process.exit(0);
} catch (err) {
  log(`failed: ${err.stack ?? err.message}`);
  run.failed = true;
  await run.cleanup();
  process.exit(1);
}
