// Measuring: loads through the gateway, the node's own answers, cold simulations behind the delaying proxy.
import type { ProxyTraceEntry } from '@tradeinfra/test-support';
import http from 'node:http';
import os from 'node:os';
import { BenchNode, Figures, cpuMeter, fmtRun, log, percentile, request, round, runLoad } from '../harness/index.js';
import { AbiCoder, keccak256 } from 'ethers';
import { Chain, Workload, checkSimulation, simulateBody } from './chain.js';
import { P, median, rpc, run, state, step } from './context.js';

// ---------------------------------------------------------------- measuring

interface RunOptions {
  concurrency: number;
  total: number;
  maxMs: number;
  pids?: Record<string, number | undefined> | null;
}

export function phaseLimitMs() {
  return P.phaseMaxSeconds * 1000;
}

/** Latency (concurrency 1) or throughput (BENCH_CONCURRENCY) of simulations through the gateway. */
export async function gatewayRun(
  label: string,
  gatewayPort: number,
  key: string,
  w: Workload,
  blockNumber: bigint | number | null,
  { concurrency, total, maxMs, pids = null }: RunOptions,
) {
  step(`${label}: ${P.warmup} warm-up + ${total} requests at concurrency ${concurrency}`);
  const body = simulateBody(w, blockNumber);
  const stats = { processTimes: [] as number[] };
  const meter = pids ? cpuMeter(pids) : null;
  const r = await runLoad({
    port: gatewayPort,
    concurrency,
    warmup: P.warmup,
    total,
    maxMs,
    // A workload with its own body() makes a new one every request.
    make: () => ({
      method: 'POST',
      path: '/v1/simulate',
      headers: { 'x-api-key': key },
      body: w.body ? simulateBody(w, blockNumber) : body,
      timeoutMs: 30_000,
    }),
    expect: 200,
    check: (res) => checkSimulation(w, res, null),
    onSample: (res) => {
      try {
        stats.processTimes.push(JSON.parse(res.body).processTime);
      } catch {}
    },
  });
  if (meter) r.cpuPercentOfOneCore = meter.stop();
  r.loadAverage1mAtEnd = round(os.loadavg()[0], 2);
  const pt = stats.processTimes.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  r.serviceProcessTimeMs = pt.length ? { p50: percentile(pt, 50), p99: percentile(pt, 99), mean: round(pt.reduce((a, b) => a + b, 0) / pt.length, 2) } : null;
  r.blockNumber = blockNumber === null ? 'latest' : Number(blockNumber);
  log(`  ${fmtRun(r)}; service processTime p50 ${r.serviceProcessTimeMs?.p50 ?? '?'} ms`);
  return r;
}

/** The node's own eth_call / debug_traceCall of the workload's call, straight to the node. */
export async function nodeRun(
  label: string,
  node: BenchNode,
  method: string,
  w: Workload,
  blockTag: string,
  {
    concurrency,
    total,
    maxMs,
    pids = null,
    traceOptions = null,
    warmupRequests,
  }: RunOptions & { traceOptions?: Record<string, unknown> | null; warmupRequests?: number },
) {
  // A struct-logger trace of the swap takes a quarter of a second: a short warm-up is enough.
  const warmup = warmupRequests ?? (method === 'debug_traceCall' ? Math.min(P.warmup, 2 * concurrency) : P.warmup);
  step(`${label}: ${warmup} warm-up + ${total} requests at concurrency ${concurrency}`);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: traceOptions ? [w.node, blockTag, traceOptions] : [w.node, blockTag] });
  let bytes = 0;
  let answers = 0;
  const make = () => ({ method: 'POST', path: '/', body, timeoutMs: 60_000 });
  // The warm-up runs on its own connections: when it ends, the workers that finished first leave
  // sockets idle for as long as the slowest trace takes (seconds), past the node's keep-alive
  // timeout (5 s), and reusing one then races the node's close (ECONNRESET).
  if (warmup > 0) await runLoad({ port: node.port, concurrency, warmup, total: 0, maxMs, make, expect: 200 });
  const meter = pids ? cpuMeter(pids) : null;
  const r = await runLoad({
    port: node.port,
    concurrency,
    warmup: 0,
    total,
    maxMs,
    make,
    expect: 200,
    check: (res) => {
      if (method === 'debug_traceCall') {
        // Struct-logger answers run to megabytes: look at the head only.
        const head = res.body.slice(0, 200);
        return /"result":\{"failed":false/.test(head) ? null : `trace failed or error: ${head}`;
      }
      let reply;
      try {
        reply = JSON.parse(res.body);
      } catch {
        return `not JSON: ${res.body.slice(0, 200)}`;
      }
      if (reply.error) return `error: ${JSON.stringify(reply.error).slice(0, 200)}`;
      try {
        return w.checkNode!(reply.result);
      } catch (err) {
        return `unreadable result: ${(err as any).message}`;
      }
    },
    onSample: (res) => {
      bytes += res.body.length;
      answers++;
    },
  });
  if (meter) r.cpuPercentOfOneCore = meter.stop();
  r.warmup = warmup;
  r.loadAverage1mAtEnd = round(os.loadavg()[0], 2);
  r.meanAnswerBytes = answers ? Math.round(bytes / answers) : null;
  log(`  ${fmtRun(r)}; mean answer ${r.meanAnswerBytes} bytes`);
  return r;
}

/**
 * Cold samples: before each, mine an empty block (the new head: nothing of it is cached), then
 * simulate on it (block explicit, or `latest`) through the gateway, with the service's RPC behind
 * the delaying proxy; count the proxy's requests during the simulation. Then send the very same
 * request again (now warm) and count again.
 */
export async function coldRun(
  label: string,
  gatewayPort: number,
  key: string,
  node: BenchNode,
  w: Workload,
  mode: string,
  describe: (entry: ProxyTraceEntry) => string,
) {
  step(`${label}: ${P.coldSamples} samples at concurrency 1 (+${P.proxyDelayMs} ms per upstream request)`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: Figures[] = [];
  const repeats: Figures[] = [];
  const errors = { count: 0, samples: [] as string[] };
  const noteError = (msg: string) => {
    errors.count++;
    if (errors.samples.length < 5) errors.samples.push(msg.slice(0, 300));
  };
  const limit = performance.now() + phaseLimitMs() * 2;
  let timeBoundHit = false;
  try {
    for (let i = 0; i < P.coldSamples; i++) {
      if (run.aborting) throw new Error('aborted');
      if (performance.now() > limit) {
        timeBoundHit = true;
        break;
      }
      await rpc(node.url, 'evm_mine');
      const head = BigInt(await rpc(node.url, 'eth_blockNumber'));
      const body = simulateBody(w, mode === 'explicit' ? head : null);
      for (const [list, kind] of <Array<[any[], string]>>[
        [samples, 'cold'],
        [repeats, 'warm'],
      ]) {
        state.proxy!.reset();
        const t0 = performance.now();
        let res: any = null;
        try {
          res = await request(agent, gatewayPort, { method: 'POST', path: '/v1/simulate', headers: { 'x-api-key': key }, body, timeoutMs: 30_000 });
        } catch (err) {
          noteError(`${kind}: network: ${(err as any).message}`);
        }
        const ms = performance.now() - t0;
        const s = state.proxy!.stats();
        const trace = state.proxy!.trace();
        let wrong: any = null;
        let processTime: any = null;
        let blockNumber: any = null;
        if (res) {
          if (res.status !== 200) wrong = `${kind}: http ${res.status}: ${res.body.slice(0, 300)}`;
          else {
            wrong = checkSimulation(w, res, null);
            const parsed = JSON.parse(res.body);
            processTime = parsed.processTime;
            blockNumber = parsed.blockNumber;
            if (!wrong && BigInt(blockNumber) !== head) wrong = `${kind}: simulated on block ${blockNumber}, expected the new head ${head}`;
          }
          if (wrong) noteError(wrong);
        }
        list.push({
          ms: round(ms, 2),
          roundTrips: s.requests,
          calls: s.calls,
          byMethod: s.byMethod,
          processTime,
          block: Number(head),
          // What each round trip carried, in order (e.g. "eth_getBlockByNumber+3 eth_getBalance+…").
          perRoundTrip: trace.map(describe),
        });
      }
    }
  } finally {
    agent.destroy();
  }
  const out: Figures = {
    mode,
    cold: summarizeCold(samples),
    warmRepeat: summarizeCold(repeats),
    errors: errors.count,
    errorSamples: errors.samples,
    timeBoundHit,
    samples,
    repeats,
  };
  log(
    `  cold: p50 ${out.cold.p50Ms} ms, p99 ${out.cold.p99Ms} ms, round trips min/median/max ${out.cold.roundTrips.min}/${out.cold.roundTrips.median}/${out.cold.roundTrips.max}, calls median ${out.cold.calls.median}; ` +
      `warm repeat: p50 ${out.warmRepeat.p50Ms} ms, round trips median ${out.warmRepeat.roundTrips.median}; errors ${out.errors}`,
  );
  return out;
}

/**
 * Names for the addresses and storage slots the upstream is asked about, so a round trip reads
 * "account(pairAB) + storage(tokenA.balanceOf[deployer])" instead of hex.
 */
export function makeLabeller(chain: Chain, coinbase: string) {
  const names = new Map();
  for (const [name, address] of Object.entries<any>({ ...chain.accounts, ...chain.contracts })) names.set(address.toLowerCase(), name);
  names.set(coinbase.toLowerCase(), 'coinbase');
  const coder = AbiCoder.defaultAbiCoder();
  const mapSlot = (key: string, base: bigint | number) => keccak256(coder.encode(['address', 'uint256'], [key, base]));
  const slots = new Map();
  // The test ERC20 and the pair's LP token (UniswapV2ERC20 layout): balanceOf at slot 1, allowance at slot 2.
  for (const [address, name] of names) slots.set(mapSlot(address, 1n), `balanceOf[${name}]`);
  for (const owner of [chain.accounts.deployer, chain.accounts.trader]) {
    slots.set(
      keccak256(coder.encode(['address', 'bytes32'], [chain.contracts.router, mapSlot(owner, 2n)])),
      `allowance[${names.get(owner.toLowerCase())}][router]`,
    );
  }
  const name = (a: unknown) => names.get(String(a).toLowerCase()) ?? `${String(a).slice(0, 10)}…`;
  const slot = (k: string) => {
    const key = `0x${String(k).slice(2).toLowerCase().padStart(64, '0')}`;
    if (slots.has(key)) return slots.get(key);
    const n = BigInt(key);
    return n < 64n ? `slot ${n}` : `${key.slice(0, 10)}…`;
  };
  /** One proxy trace entry (one upstream request) in words. */
  return (entry: ProxyTraceEntry) => {
    const parts: any[] = [];
    const accounts = new Set();
    const storage: string[] = [];
    const other: Figures = {};
    entry.methods.forEach((m, i) => {
      const p = (entry.params[i] ?? []) as string[];
      if (m === 'eth_getBlockByNumber') parts.push(`block(${/^0x/.test(p[0]) ? Number(p[0]) : p[0]})`);
      else if (m === 'eth_getBalance' || m === 'eth_getTransactionCount' || m === 'eth_getCode') accounts.add(name(p[0]));
      else if (m === 'eth_getStorageAt') storage.push(`${name(p[0])}.${slot(p[1])}`);
      else other[m] = (other[m] ?? 0) + 1;
    });
    if (accounts.size) parts.push(`account(${[...accounts].join(', ')})`);
    if (storage.length) parts.push(`storage(${storage.join(', ')})`);
    for (const [m, n] of Object.entries<any>(other)) parts.push(n > 1 ? `${n}×${m}` : m);
    return parts.join(' + ');
  };
}

export function summarizeCold(list: Figures[]) {
  const ms = list.map((s) => s.ms).sort((a, b) => a - b);
  const rts = list.map((s) => s.roundTrips);
  const calls = list.map((s) => s.calls);
  const byMethod: Figures = {};
  for (const s of list) for (const [m, n] of Object.entries<any>(s.byMethod)) byMethod[m] = (byMethod[m] ?? 0) + n;
  return {
    samples: list.length,
    p50Ms: round(percentile(ms, 50), 2),
    p99Ms: round(percentile(ms, 99), 2),
    maxMs: round(ms[ms.length - 1] ?? null, 2),
    roundTrips: { min: rts.length ? Math.min(...rts) : null, median: median(rts), max: rts.length ? Math.max(...rts) : null },
    calls: { min: calls.length ? Math.min(...calls) : null, median: median(calls), max: calls.length ? Math.max(...calls) : null },
    callsByMethodPerRequest: Object.fromEntries(Object.entries<any>(byMethod).map(([m, n]) => [m, round(n / Math.max(1, list.length), 2)])),
    serviceProcessTimeMsP50: median(list.map((s) => s.processTime).filter((v) => typeof v === 'number')),
  };
}
