#!/usr/bin/env node
// Bundle-simulation benchmark: `npm run bench:simulate` (which installs, builds and migrates first).
//
//   1. a local hardhat@2 node (chain id 1, Prague, base fee 0) with an ERC20 pair, WETH9 and
//      Uniswap V2 (factory + router02) deployed and two pools seeded
//   2. WARM: gateway → NATS → simulation service → node directly; latency at concurrency 1 and
//      throughput at BENCH_CONCURRENCY, for an ERC20 transfer and an approve + swap bundle
//   3. NODE: the same work as the node's own eth_call and debug_traceCall (default struct logger)
//   4. COLD: a simulation service whose RPC goes through bench/delay-proxy.mjs (+20 ms per HTTP
//      request); before each sample an empty block is mined so the (chain, block) cache is cold;
//      latency and upstream round trips per request, with the block explicit and with `latest`
// Own database (ti_bench_<pid>_<random>, dropped at the end), own nats-server, own node.
// Prints a table on stdout and writes bench/results/simulate.json. See bench/README.md.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AbiCoder, Interface, keccak256 } from 'ethers';
import pg from 'pg';
import { bootstrapDatabase } from '../infra/postgres/bootstrap.mjs';
import { withDefaults } from '../scripts/lib.mjs';
import { startDelayProxy } from './delay-proxy.mjs';
import {
  BenchRun,
  cpuMeter,
  envInt,
  freePort,
  hostInfo,
  jsonRpc,
  startHardhatNode,
  packageVersion as libPackageVersion,
  log,
  logIssues,
  percentile,
  request,
  round,
  runLoad,
  runNodeScript,
  waitFor200,
} from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results', 'simulate.json');

// ---------------------------------------------------------------- parameters

const P = {
  concurrency: envInt('BENCH_CONCURRENCY', 8, { max: 256 }),
  latencyRequests: envInt('BENCH_LATENCY_REQUESTS', 500, { max: 100_000 }),
  throughputRequests: envInt('BENCH_THROUGHPUT_REQUESTS', 3000, { max: 1_000_000 }),
  throughputSeconds: envInt('BENCH_THROUGHPUT_SECONDS', 10, { max: 600 }),
  warmup: envInt('BENCH_WARMUP', 100, { min: 0, max: 100_000 }),
  coldSamples: envInt('BENCH_COLD_SAMPLES', 20, { max: 1000 }),
  proxyDelayMs: envInt('BENCH_PROXY_DELAY_MS', 20, { min: 0, max: 5000 }),
  phaseMaxSeconds: envInt('BENCH_PHASE_MAX_SECONDS', 30, { max: 3600 }),
  maxSeconds: envInt('BENCH_MAX_SECONDS', 600, { max: 24 * 3600 }),
  /** Also run the cold samples against an upstream that has eth_createAccessList (the proxy emulates it). */
  emulatedAccessList: process.env.BENCH_EMULATED_ACCESS_LIST !== '0',
};
const TARGETS = { swapWarmP50Ms: 10, coldSwapRoundTrips: 4, coldUnseenSwapRoundTrips: 3, swapThroughputVsEthCall: 0.5 };
/** The node's fork: today's mainnet. The simulation service picks it by itself (no HARDFORK_1), from mainnet's schedule. */
const HARDFORK = 'osaka';
const DEADLINE = 4_102_444_800n; // 2100-01-01: swaps never expire during the run
const SUPPLY = 10n ** 27n; // each test token's total supply (18 decimals: 1e9 tokens)
const POOL = 10n ** 24n; // liquidity per side of the tokenA/tokenB pool
const POOL_ETH = 10n ** 21n; // 1000 ETH against POOL tokenA in the tokenA/WETH pool
const TRANSFER_AMOUNT = 1000n;
const SWAP_AMOUNT_IN = 10n ** 18n;

const env = withDefaults(process.env);
const startedAt = new Date();
const run = new BenchRun({ name: 'sim', env, maxSeconds: P.maxSeconds, applicationName: 'bench' });
const { tmp, children } = run;
/** Every delay proxy started (closed on cleanup); `proxy` is the one the running cold service uses. */
const proxies = [];
let proxy = null;
let profileDir = null;
run.onCleanup(() => Promise.all(proxies.map((p) => p.close())));
let dbName = null;

// ---------------------------------------------------------------- small helpers

const pool = (database, max) => run.pool(database, max);
const runNode = (script, args, childEnv) => runNodeScript(ROOT, script, args, childEnv);
const step = (title) => run.step(title);





const hex = (n) => `0x${BigInt(n).toString(16)}`;

function median(values) {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}



/** The built apps (apps/<name>/dist/main.js), gateway and simulation service included. */
function productApps() {
  const apps = readdirSync(join(ROOT, 'apps')).filter((a) => existsSync(join(ROOT, 'apps', a, 'dist/main.js'))).sort();
  for (const required of ['gateway', 'simulation-service']) {
    if (!apps.includes(required)) throw new Error(`apps/${required}/dist/main.js is missing: build first (npx turbo run build)`);
  }
  return apps;
}

// ---------------------------------------------------------------- JSON-RPC to the node (setup, mining)

const rpc = (url, method, params = []) => jsonRpc(url, method, params);

// ---------------------------------------------------------------- NATS


// ---------------------------------------------------------------- the node

const packageVersion = (name) => libPackageVersion(ROOT, name);

/** The reference node: chain id 1, Osaka, base fee 0, automine. */
function startHardhat() {
  const network = { chainId: 1, hardfork: HARDFORK, initialBaseFeePerGas: 0, allowBlocksWithSameTimestamp: true };
  return startHardhatNode({ root: ROOT, children, dir: join(tmp, 'hardhat'), network });
}

function artifact(path) {
  const json = JSON.parse(readFileSync(join(ROOT, 'node_modules', path), 'utf8'));
  const bytecode = json.bytecode ?? json.evm?.bytecode?.object;
  if (!bytecode) throw new Error(`${path} has no bytecode`);
  return { iface: new Interface(json.abi), bytecode: bytecode.startsWith('0x') ? bytecode : `0x${bytecode}` };
}

/**
 * Deploys two ERC20s, WETH9, UniswapV2Factory and UniswapV2Router02 with hardhat's unlocked
 * accounts (eth_sendTransaction, automine), and seeds tokenA/tokenB and tokenA/WETH pools.
 * `trader` (another account) gets tokenA and approves the router for good: the node-side
 * eth_call / debug_traceCall of the swap run from it, so the simulated bundle's `from` keeps a
 * zero allowance and its approve matters.
 */
async function deploy(url) {
  const [deployer, recipient, trader] = await rpc(url, 'eth_accounts');
  const send = async (from, to, data, { value = 0n, gas = 8_000_000 } = {}) => {
    const hash = await rpc(url, 'eth_sendTransaction', [{ from, ...(to ? { to } : {}), data, gas: hex(gas), ...(value ? { value: hex(value) } : {}) }]);
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    if (!receipt || receipt.status !== '0x1') throw new Error(`setup transaction ${hash} failed: ${JSON.stringify(receipt)?.slice(0, 300)}`);
    return receipt;
  };
  const create = async (art, args) => (await send(deployer, null, art.bytecode + art.iface.encodeDeploy(args).slice(2), { gas: 10_000_000 })).contractAddress.toLowerCase();

  const erc20 = artifact('@uniswap/v2-core/build/ERC20.json');
  const weth9 = artifact('@uniswap/v2-periphery/build/WETH9.json');
  const factoryArt = artifact('@uniswap/v2-core/build/UniswapV2Factory.json');
  const routerArt = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
  const pairArt = artifact('@uniswap/v2-core/build/UniswapV2Pair.json');

  const tokenA = await create(erc20, [SUPPLY]);
  const tokenB = await create(erc20, [SUPPLY]);
  const weth = await create(weth9, []);
  const factory = await create(factoryArt, [deployer]);
  const router = await create(routerArt, [factory, weth]);
  const max = (1n << 256n) - 1n;

  await send(deployer, tokenA, erc20.iface.encodeFunctionData('approve', [router, max]));
  await send(deployer, tokenB, erc20.iface.encodeFunctionData('approve', [router, max]));
  await send(deployer, router, routerArt.iface.encodeFunctionData('addLiquidity', [tokenA, tokenB, POOL, POOL, 0n, 0n, deployer, DEADLINE]));
  await send(deployer, router, routerArt.iface.encodeFunctionData('addLiquidityETH', [tokenA, POOL, 0n, 0n, deployer, DEADLINE]), { value: POOL_ETH });
  // The bundle's sender starts with no allowance, so that the simulated approve is what makes the swap pass.
  await send(deployer, tokenA, erc20.iface.encodeFunctionData('approve', [router, 0n]));
  // The trader: tokenA, and the router approved once and for all (for the node-side measurements).
  await send(deployer, tokenA, erc20.iface.encodeFunctionData('transfer', [trader, POOL]));
  await send(trader, tokenA, erc20.iface.encodeFunctionData('approve', [router, max]));

  const factoryIface = factoryArt.iface;
  const pairAB = (await rpc(url, 'eth_call', [{ to: factory, data: factoryIface.encodeFunctionData('getPair', [tokenA, tokenB]) }, 'latest'])).replace(/^0x0{24}/, '0x');
  const pairAW = (await rpc(url, 'eth_call', [{ to: factory, data: factoryIface.encodeFunctionData('getPair', [tokenA, weth]) }, 'latest'])).replace(/^0x0{24}/, '0x');
  if (/^0x0+$/.test(pairAB) || /^0x0+$/.test(pairAW)) throw new Error('the Uniswap pairs were not created');
  const reserves = pairArt.iface.decodeFunctionResult('getReserves', await rpc(url, 'eth_call', [{ to: pairAB, data: pairArt.iface.encodeFunctionData('getReserves') }, 'latest']));
  if (reserves[0] !== POOL || reserves[1] !== POOL) throw new Error(`unexpected tokenA/tokenB reserves ${reserves[0]}, ${reserves[1]}`);
  return {
    accounts: { deployer, recipient, trader },
    contracts: { tokenA, tokenB, weth, factory, router, pairAB, pairAW },
    ifaces: { erc20: erc20.iface, router: routerArt.iface },
  };
}

// ---------------------------------------------------------------- workloads

/**
 * The two bundles (through the gateway) and their node-side equivalents (eth_call /
 * debug_traceCall, one call: the transfer itself, and the swap from the pre-approved trader).
 */
function workloads(chain) {
  const { deployer, recipient, trader } = chain.accounts;
  const { tokenA, tokenB, router } = chain.contracts;
  const { erc20, router: r } = chain.ifaces;
  const transferData = erc20.encodeFunctionData('transfer', [recipient, TRANSFER_AMOUNT]);
  const swapData = (to) => r.encodeFunctionData('swapExactTokensForTokens', [SWAP_AMOUNT_IN, 0n, [tokenA, tokenB], to, DEADLINE]);
  const expectedOut = (SWAP_AMOUNT_IN * 997n * POOL) / (POOL * 1000n + SWAP_AMOUNT_IN * 997n);
  const TRUE = `0x${'0'.repeat(63)}1`;
  return {
    transfer: {
      label: 'ERC20 transfer',
      calls: [{ from: deployer, to: tokenA, data: transferData }],
      /** A reason the answer is wrong, or null. */
      check(calls) {
        return calls[0].result === TRUE ? null : `transfer returned ${calls[0].result}`;
      },
      node: { from: deployer, to: tokenA, data: transferData },
      checkNode: (result) => (result === TRUE ? null : `eth_call transfer returned ${result}`),
    },
    swap: {
      label: 'Uniswap V2 approve + swap',
      calls: [
        { from: deployer, to: tokenA, data: erc20.encodeFunctionData('approve', [router, SWAP_AMOUNT_IN]) },
        { from: deployer, to: router, data: swapData(deployer) },
      ],
      check(calls) {
        const amounts = r.decodeFunctionResult('swapExactTokensForTokens', calls[1].result)[0];
        return amounts[1] === expectedOut ? null : `swap gave ${amounts[1]}, expected ${expectedOut}`;
      },
      node: { from: trader, to: router, data: swapData(trader) },
      checkNode(result) {
        const amounts = r.decodeFunctionResult('swapExactTokensForTokens', result)[0];
        return amounts[1] === expectedOut ? null : `eth_call swap gave ${amounts[1]}, expected ${expectedOut}`;
      },
      expectedOut,
    },
  };
}

function simulateBody(w, blockNumber) {
  if (w.body) return JSON.stringify(w.body(blockNumber));
  return JSON.stringify({ chainId: 1, ...(blockNumber !== null ? { blockNumber: Number(blockNumber) } : {}), calls: w.calls });
}

/**
 * The approve + swap as a bundle of a shape never seen before: every request comes from a new
 * sender (a random address given the tokens with a storage override), so nothing of it is in the
 * service's memory of shapes, and its sender's accounts and slots in no cache.
 */
function unseenSwapWorkload(chain, swap) {
  const { tokenA, tokenB, router } = chain.contracts;
  const { erc20, router: r } = chain.ifaces;
  const coder = AbiCoder.defaultAbiCoder();
  return {
    label: 'Uniswap V2 approve + swap, unseen shape',
    calls: swap.calls,
    check: swap.check,
    body(blockNumber) {
      const sender = `0x${randomBytes(20).toString('hex')}`;
      // The test ERC20 (UniswapV2ERC20 layout): balanceOf at slot 1.
      const balanceSlot = keccak256(coder.encode(['address', 'uint256'], [sender, 1n]));
      return {
        chainId: 1,
        ...(blockNumber !== null ? { blockNumber: Number(blockNumber) } : {}),
        overrides: { storage: { [tokenA]: { [balanceSlot]: hex(SWAP_AMOUNT_IN) } } },
        calls: [
          { from: sender, to: tokenA, data: erc20.encodeFunctionData('approve', [router, SWAP_AMOUNT_IN]) },
          { from: sender, to: router, data: r.encodeFunctionData('swapExactTokensForTokens', [SWAP_AMOUNT_IN, 0n, [tokenA, tokenB], sender, DEADLINE]) },
        ],
      };
    },
  };
}

/** Checks one /v1/simulate answer: every call status 1, and the workload's own check. */
function checkSimulation(w, res, stats) {
  let body;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `not JSON: ${res.body.slice(0, 200)}`;
  }
  if (!Array.isArray(body.calls) || body.calls.length !== w.calls.length) return `expected ${w.calls.length} calls: ${res.body.slice(0, 300)}`;
  const bad = body.calls.findIndex((c) => c.status !== 1);
  if (bad >= 0) return `call #${bad} has status ${body.calls[bad].status} (${body.calls[bad].error ?? 'no error'})`;
  if (stats) stats.processTimes.push(body.processTime);
  try {
    return w.check(body.calls);
  } catch (err) {
    return `unreadable result: ${err.message}`;
  }
}

// ---------------------------------------------------------------- measuring

function phaseLimitMs() {
  return P.phaseMaxSeconds * 1000;
}

function fmtRun(r) {
  const first = r.errors ? ` (${JSON.stringify(r.errorsByKind)}, e.g. ${r.errorSamples[0]})` : '';
  return `${r.completed} req in ${r.seconds} s = ${r.reqPerSec} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, max ${r.maxMs} ms, errors ${r.errors}${first}${r.timeBoundHit ? ' (TIME BOUND HIT)' : ''}`;
}

/** Latency (concurrency 1) or throughput (BENCH_CONCURRENCY) of simulations through the gateway. */
async function gatewayRun(label, gatewayPort, key, w, blockNumber, { concurrency, total, maxMs, pids = null }) {
  step(`${label}: ${P.warmup} warm-up + ${total} requests at concurrency ${concurrency}`);
  const body = simulateBody(w, blockNumber);
  const stats = { processTimes: [] };
  const meter = pids ? cpuMeter(pids) : null;
  const r = await runLoad({
    port: gatewayPort,
    concurrency,
    warmup: P.warmup,
    total,
    maxMs,
    make: () => ({ method: 'POST', path: '/v1/simulate', headers: { 'x-api-key': key }, body, timeoutMs: 30_000 }),
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
async function nodeRun(label, node, method, w, blockTag, { concurrency, total, maxMs, pids = null, traceOptions = null }) {
  // A struct-logger trace of the swap takes a quarter of a second: a short warm-up is enough.
  const warmup = method === 'debug_traceCall' ? Math.min(P.warmup, 2 * concurrency) : P.warmup;
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
        return w.checkNode(reply.result);
      } catch (err) {
        return `unreadable result: ${err.message}`;
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
async function coldRun(label, gatewayPort, key, node, w, mode, describe) {
  step(`${label}: ${P.coldSamples} samples at concurrency 1 (+${P.proxyDelayMs} ms per upstream request)`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  const repeats = [];
  const errors = { count: 0, samples: [] };
  const noteError = (msg) => {
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
      for (const [list, kind] of [
        [samples, 'cold'],
        [repeats, 'warm'],
      ]) {
        proxy.reset();
        const t0 = performance.now();
        let res = null;
        try {
          res = await request(agent, gatewayPort, { method: 'POST', path: '/v1/simulate', headers: { 'x-api-key': key }, body, timeoutMs: 30_000 });
        } catch (err) {
          noteError(`${kind}: network: ${err.message}`);
        }
        const ms = performance.now() - t0;
        const s = proxy.stats();
        const trace = proxy.trace();
        let wrong = null;
        let processTime = null;
        let blockNumber = null;
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
  const out = { mode, cold: summarizeCold(samples), warmRepeat: summarizeCold(repeats), errors: errors.count, errorSamples: errors.samples, timeBoundHit, samples, repeats };
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
function makeLabeller(chain, coinbase) {
  const names = new Map();
  for (const [name, address] of Object.entries({ ...chain.accounts, ...chain.contracts })) names.set(address.toLowerCase(), name);
  names.set(coinbase.toLowerCase(), 'coinbase');
  const coder = AbiCoder.defaultAbiCoder();
  const mapSlot = (key, base) => keccak256(coder.encode(['address', 'uint256'], [key, base]));
  const slots = new Map();
  // The test ERC20 and the pair's LP token (UniswapV2ERC20 layout): balanceOf at slot 1, allowance at slot 2.
  for (const [address, name] of names) slots.set(mapSlot(address, 1n), `balanceOf[${name}]`);
  for (const owner of [chain.accounts.deployer, chain.accounts.trader]) {
    slots.set(keccak256(coder.encode(['address', 'bytes32'], [chain.contracts.router, mapSlot(owner, 2n)])), `allowance[${names.get(owner.toLowerCase())}][router]`);
  }
  const name = (a) => names.get(String(a).toLowerCase()) ?? `${String(a).slice(0, 10)}…`;
  const slot = (k) => {
    const key = `0x${String(k).slice(2).toLowerCase().padStart(64, '0')}`;
    if (slots.has(key)) return slots.get(key);
    const n = BigInt(key);
    return n < 64n ? `slot ${n}` : `${key.slice(0, 10)}…`;
  };
  /** One proxy trace entry (one upstream request) in words. */
  return (entry) => {
    const parts = [];
    const accounts = new Set();
    const storage = [];
    const other = {};
    entry.methods.forEach((m, i) => {
      const p = entry.params[i] ?? [];
      if (m === 'eth_getBlockByNumber') parts.push(`block(${/^0x/.test(p[0]) ? Number(p[0]) : p[0]})`);
      else if (m === 'eth_getBalance' || m === 'eth_getTransactionCount' || m === 'eth_getCode') accounts.add(name(p[0]));
      else if (m === 'eth_getStorageAt') storage.push(`${name(p[0])}.${slot(p[1])}`);
      else other[m] = (other[m] ?? 0) + 1;
    });
    if (accounts.size) parts.push(`account(${[...accounts].join(', ')})`);
    if (storage.length) parts.push(`storage(${storage.join(', ')})`);
    for (const [m, n] of Object.entries(other)) parts.push(n > 1 ? `${n}×${m}` : m);
    return parts.join(' + ');
  };
}

function summarizeCold(list) {
  const ms = list.map((s) => s.ms).sort((a, b) => a - b);
  const rts = list.map((s) => s.roundTrips);
  const calls = list.map((s) => s.calls);
  const byMethod = {};
  for (const s of list) for (const [m, n] of Object.entries(s.byMethod)) byMethod[m] = (byMethod[m] ?? 0) + n;
  return {
    samples: list.length,
    p50Ms: round(percentile(ms, 50), 2),
    p99Ms: round(percentile(ms, 99), 2),
    maxMs: round(ms[ms.length - 1] ?? null, 2),
    roundTrips: { min: rts.length ? Math.min(...rts) : null, median: median(rts), max: rts.length ? Math.max(...rts) : null },
    calls: { min: calls.length ? Math.min(...calls) : null, median: median(calls), max: calls.length ? Math.max(...calls) : null },
    callsByMethodPerRequest: Object.fromEntries(Object.entries(byMethod).map(([m, n]) => [m, round(n / Math.max(1, list.length), 2)])),
    serviceProcessTimeMsP50: median(list.map((s) => s.processTime).filter((v) => typeof v === 'number')),
  };
}

// ---------------------------------------------------------------- main

async function main() {
  const results = { scenarios: {}, cold: {}, notes: [] };
  await run.dropLeftovers();

  // ---- 1. the node and the contracts
  step('starting hardhat node');
  const node = await startHardhat();
  log(`  ${node.version} at ${node.url} (pid ${node.pid})`);
  step('deploying ERC20 ×2, WETH9, UniswapV2Factory, UniswapV2Router02; adding liquidity');
  const chain = await deploy(node.url);
  const pinned = BigInt(await rpc(node.url, 'eth_blockNumber'));
  log(`  tokenA ${chain.contracts.tokenA}, tokenB ${chain.contracts.tokenB}, router ${chain.contracts.router}, pair ${chain.contracts.pairAB}; head ${pinned}`);
  const W = workloads(chain);
  const coinbase = (await rpc(node.url, 'eth_getBlockByNumber', [hex(pinned), false])).miner;
  const describe = makeLabeller(chain, coinbase);

  // ---- 2. NATS, database, services
  step('starting NATS');
  const nats = await run.startNats();
  log(`  NATS ${nats.private ? `private nats-server at ${nats.url}` : `shared at ${nats.url}`}`);
  dbName = `ti_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  step(`creating database ${dbName}`);
  run.useDatabase(dbName); // from here on, cleanup drops it (IF EXISTS)
  await bootstrapDatabase({ env, database: dbName });
  // No chain settings of the caller's leak into the services: the bench sets RPC_URL_1 itself.
  const cleanEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !/^(RPC_URL|HARDFORK)_\d+$/.test(k)));
  const baseEnv = { ...cleanEnv, PGDATABASE: dbName, NATS_URL: nats.url, LOG_FORMAT: 'json', NO_COLOR: '1' };
  // Every app with a database migrates it (intent, payout, gateway … whatever is built).
  for (const app of productApps().filter((a) => existsSync(join(ROOT, 'apps', a, 'dist/database/migrate.js')))) {
    const out = runNode(`apps/${app}/dist/database/migrate.js`, [], baseEnv);
    log(`  ${out.trim()}`);
  }
  const key = runNode('apps/gateway/dist/cli/apikey.js', ['create', '--name', 'bench', '--scopes', 'simulate'], baseEnv).trim();
  if (!/^ti_[A-Za-z0-9_-]{43}$/.test(key)) throw new Error(`apikey create printed something unexpected: ${key.slice(0, 80)}`);
  const db = pool(dbName, 1);
  const machine = await machineInfo(db, nats, node);

  const productEnv = { ...baseEnv, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', HOST: '127.0.0.1' };
  const simulationArgs = (name) => {
    if (process.env.BENCH_CPU_PROF !== '1') return [join(ROOT, 'apps/simulation-service/dist/main.js')];
    profileDir ??= mkdtempSync(join(os.tmpdir(), 'ti-bench-sim-prof-'));
    // Nest re-raises SIGTERM after its shutdown hooks, and a process killed by a signal writes no
    // profile: exit normally on SIGTERM instead (this listener runs first).
    return ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${name}.cpuprofile`, '--import', 'data:text/javascript,process.on("SIGTERM",()=>process.exit(0))', join(ROOT, 'apps/simulation-service/dist/main.js')];
  };
  const startSimulation = async (name, rpcUrl) => {
    const entry = children.start(name, process.execPath, simulationArgs(name), {
      cwd: ROOT,
      env: { ...productEnv, RPC_URL_1: rpcUrl },
      readyLine: /listening on/,
      readyTimeoutMs: 30_000,
    });
    await entry.ready;
    return entry;
  };

  // The gateway's /ready wants every service to answer: start the others too (intent, payout, …).
  const others = productApps().filter((a) => a !== 'gateway' && a !== 'simulation-service');
  step(`starting ${others.join(', ')}, the simulation service (RPC: the node, directly) and the gateway`);
  for (const app of others) {
    const entry = children.start(app, process.execPath, [join(ROOT, 'apps', app, 'dist/main.js')], {
      cwd: ROOT,
      env: productEnv,
      readyLine: /listening on/,
      readyTimeoutMs: 30_000,
    });
    await entry.ready;
  }
  const simWarm = await startSimulation('simulation-service-warm', node.url);
  const gatewayPort = await freePort();
  const gateway = children.start('gateway', process.execPath, [join(ROOT, 'apps/gateway/dist/main.js')], {
    cwd: ROOT,
    env: { ...productEnv, PORT: String(gatewayPort) },
    readyLine: /listening on/,
    readyTimeoutMs: 30_000,
  });
  await gateway.ready;
  await waitFor200(gatewayPort, '/ready', { children, timeoutMs: 30_000, what: 'gateway /ready' });

  // One answer of each, kept in the JSON (and a first check that the bundles pass at all).
  const sampleAgent = new http.Agent({ keepAlive: false });
  results.sampleAnswers = {};
  for (const [name, w] of Object.entries(W)) {
    const res = await request(sampleAgent, gatewayPort, { method: 'POST', path: '/v1/simulate', headers: { 'x-api-key': key }, body: simulateBody(w, pinned), timeoutMs: 30_000 });
    const wrong = res.status === 200 ? checkSimulation(w, res, null) : `http ${res.status}: ${res.body.slice(0, 300)}`;
    if (wrong) throw new Error(`${w.label}: the first simulation is wrong: ${wrong}`);
    results.sampleAnswers[name] = JSON.parse(res.body);
    log(`  ${w.label}: ok, gasUsed ${results.sampleAnswers[name].calls.map((c) => BigInt(c.gasUsed)).join(' + ')}`);
  }

  const warmPids = { gateway: gateway.child.pid, 'simulation-service': simWarm.child.pid, hardhat: node.pid, ...(nats.pid ? { 'nats-server': nats.pid } : {}) };
  const nodePids = { hardhat: node.pid };
  const S = results.scenarios;

  // ---- 3. WARM, through the gateway, block pinned (cached after the first request); then `latest`
  for (const [name, w] of Object.entries(W)) {
    S[`${name}WarmC1`] = await gatewayRun(`${w.label}, warm, via the gateway, block ${pinned}`, gatewayPort, key, w, pinned, {
      concurrency: 1,
      total: P.latencyRequests,
      maxMs: phaseLimitMs(),
    });
    S[`${name}WarmLatestC1`] = await gatewayRun(`${w.label}, warm, via the gateway, block latest`, gatewayPort, key, w, null, {
      concurrency: 1,
      total: P.latencyRequests,
      maxMs: phaseLimitMs(),
    });
    S[`${name}WarmCN`] = await gatewayRun(`${w.label}, warm, via the gateway, block ${pinned}`, gatewayPort, key, w, pinned, {
      concurrency: P.concurrency,
      total: P.throughputRequests,
      maxMs: P.throughputSeconds * 1000,
      pids: warmPids,
    });
  }

  // ---- 4. the node's own eth_call and debug_traceCall (struct logger), straight to the node
  const tag = hex(pinned);
  for (const [name, w] of Object.entries(W)) {
    for (const method of ['eth_call', 'debug_traceCall']) {
      const short = method === 'eth_call' ? 'EthCall' : 'Trace';
      S[`${name}Node${short}C1`] = await nodeRun(`${w.label}, node ${method}`, node, method, w, tag, { concurrency: 1, total: P.latencyRequests, maxMs: phaseLimitMs() });
      S[`${name}Node${short}CN`] = await nodeRun(`${w.label}, node ${method}`, node, method, w, tag, {
        concurrency: P.concurrency,
        total: P.throughputRequests,
        maxMs: P.throughputSeconds * 1000,
        pids: nodePids,
      });
    }
    // For scale only (no target): the struct logger without memory and storage, the least a
    // frame-by-frame tracer needs (the stack holds call targets and values).
    S[`${name}NodeTraceLeanCN`] = await nodeRun(`${w.label}, node debug_traceCall {disableMemory, disableStorage}`, node, 'debug_traceCall', w, tag, {
      concurrency: P.concurrency,
      total: P.throughputRequests,
      maxMs: P.throughputSeconds * 1000,
      pids: nodePids,
      traceOptions: { disableMemory: true, disableStorage: true },
    });
  }

  // ---- 5. COLD: a simulation service whose RPC is the delaying proxy (the warm one stops first:
  //      both would share the `simulation-service` queue group)
  step(`stopping the warm simulation service; starting the delay proxy (+${P.proxyDelayMs} ms) and a simulation service behind it`);
  await children.stop(simWarm);
  proxy = await startDelayProxy({ upstream: node.url, delayMs: P.proxyDelayMs });
  proxies.push(proxy);
  const simCold = await startSimulation('simulation-service-cold', proxy.url);
  await waitFor200(gatewayPort, '/ready', { children, timeoutMs: 30_000, what: 'gateway /ready (cold simulation service)' });

  // The service's first simulations ever: JIT, and whatever it learns about the upstream once.
  step('first simulations of the cold service (not counted; what they sent upstream is kept)');
  results.cold.firstRequests = [];
  {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (const [name, w] of Object.entries(W)) {
      await rpc(node.url, 'evm_mine');
      const head = BigInt(await rpc(node.url, 'eth_blockNumber'));
      proxy.reset();
      const t0 = performance.now();
      const res = await request(agent, gatewayPort, { method: 'POST', path: '/v1/simulate', headers: { 'x-api-key': key }, body: simulateBody(w, head), timeoutMs: 30_000 });
      const ms = performance.now() - t0;
      const wrong = res.status === 200 ? checkSimulation(w, res, null) : `http ${res.status}: ${res.body.slice(0, 300)}`;
      if (wrong) throw new Error(`${w.label}: the first cold simulation is wrong: ${wrong}`);
      const s = proxy.stats();
      results.cold.firstRequests.push({ workload: name, ms: round(ms, 2), roundTrips: s.requests, calls: s.calls, byMethod: s.byMethod, perRoundTrip: proxy.trace().map(describe) });
      log(`  ${w.label}: ${round(ms, 1)} ms, ${s.requests} round trips: ${JSON.stringify(s.byMethod)}`);
    }
    // A few more unmeasured cold runs to settle the JIT.
    for (let i = 0; i < 3; i++) {
      for (const w of Object.values(W)) {
        await rpc(node.url, 'evm_mine');
        await request(agent, gatewayPort, { method: 'POST', path: '/v1/simulate', headers: { 'x-api-key': key }, body: simulateBody(w, null), timeoutMs: 30_000 });
      }
    }
    agent.destroy();
  }
  for (const [name, w] of Object.entries(W)) {
    for (const mode of ['explicit', 'latest']) {
      results.cold[`${name}${mode === 'explicit' ? 'Explicit' : 'Latest'}`] = await coldRun(`${w.label}, cold, via the gateway, block ${mode === 'explicit' ? 'explicit (new head)' : 'latest'}`, gatewayPort, key, node, w, mode, describe);
    }
  }
  // The same swap as a shape never seen before (a new sender every request).
  const unseen = unseenSwapWorkload(chain, W.swap);
  for (const mode of ['explicit', 'latest']) {
    results.cold[`swapUnseen${mode === 'explicit' ? 'Explicit' : 'Latest'}`] = await coldRun(`${unseen.label}, cold, via the gateway, block ${mode === 'explicit' ? 'explicit (new head)' : 'latest'}`, gatewayPort, key, node, unseen, mode, describe);
  }

  // ---- 6. the same cold samples with an upstream that answers eth_createAccessList (hardhat does
  //      not: the proxy emulates it from debug_traceCall, inside the same delayed round trip).
  //      A new service process: the first one has learnt that the node lacks the method.
  if (P.emulatedAccessList) {
    step('stopping the cold simulation service; starting a proxy that emulates eth_createAccessList, and a simulation service behind it');
    await children.stop(simCold);
    proxy = await startDelayProxy({ upstream: node.url, delayMs: P.proxyDelayMs, emulateAccessList: true });
    proxies.push(proxy);
    const simAcl = await startSimulation('simulation-service-access-list', proxy.url);
    await waitFor200(gatewayPort, '/ready', { children, timeoutMs: 30_000, what: 'gateway /ready (access-list simulation service)' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 3; i++) {
      for (const w of Object.values(W)) {
        await rpc(node.url, 'evm_mine');
        const res = await request(agent, gatewayPort, { method: 'POST', path: '/v1/simulate', headers: { 'x-api-key': key }, body: simulateBody(w, null), timeoutMs: 30_000 });
        const wrong = res.status === 200 ? checkSimulation(w, res, null) : `http ${res.status}: ${res.body.slice(0, 300)}`;
        if (wrong) throw new Error(`${w.label}: a simulation behind the access-list proxy is wrong: ${wrong}`);
      }
    }
    agent.destroy();
    results.cold.accessListEmulated = {};
    for (const [name, w] of Object.entries(W)) {
      results.cold.accessListEmulated[name] = await coldRun(`${w.label}, cold, eth_createAccessList emulated, block explicit (new head)`, gatewayPort, key, node, w, 'explicit', describe);
    }
    results.cold.accessListEmulated.simulationServicePid = simAcl.child.pid;
  }

  const hold = envInt('BENCH_HOLD_SECONDS', 0, { min: 0, max: 3600 });
  if (hold > 0) {
    log(
      `holding the stack for ${hold} s (BENCH_HOLD_SECONDS): gateway http://127.0.0.1:${gatewayPort} (x-api-key ${key}), node ${node.url}, ` +
        `proxy ${proxy.url} (the running simulation service's RPC), NATS ${nats.url}, database ${dbName}; contracts ${JSON.stringify(chain.contracts)}, accounts ${JSON.stringify(chain.accounts)}`,
    );
    const until = Date.now() + hold * 1000;
    while (Date.now() < until && !run.aborting) await new Promise((r) => setTimeout(r, 500));
  }
  step('stopping children');
  await children.stopAll();
  results.childLogs = Object.fromEntries(children.list.map((e) => [e.name, logIssues(e.logPath)]));
  results.proxyTotals = proxies.map((p, i) => ({ role: i === 0 ? 'cold' : 'cold, eth_createAccessList emulated', delayMs: p.delayMs, ...p.totals() }));
  results.deployment = { ...chain.contracts, ...chain.accounts, pinnedBlock: Number(pinned) };
  return { results, machine, nats, node, simColdPid: simCold.child.pid };
}

async function machineInfo(db, nats, node) {
  return {
    ...hostInfo(),
    postgres: (await db.query('SELECT version() AS v')).rows[0].v,
    nats: { url: nats.url, private: nats.private, version: nats.version },
    chainNode: { client: node.version, hardhat: packageVersion('hardhat'), edr: packageVersion('@nomicfoundation/edr'), config: node.config },
    ethereumjsVm: packageVersion('@ethereumjs/vm'),
    code: codeVersion(),
  };
}

/** Which code was measured: the commit, the files changed since, and when the simulation service was built. */
function codeVersion() {
  const git = (args) => {
    const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : null;
  };
  let builtAt = null;
  try {
    builtAt = statSync(join(ROOT, 'apps/simulation-service/dist/engine/simulator.js')).mtime.toISOString();
  } catch {}
  const changed = git(['status', '--porcelain']);
  return { commit: git(['rev-parse', 'HEAD']), changedFiles: changed === null ? null : changed.split('\n').filter(Boolean), simulationServiceBuiltAt: builtAt };
}

// ---------------------------------------------------------------- report

function table(rows, headers) {
  const cells = [headers, ...rows].map((r) => r.map((c) => (c === null || c === undefined ? '–' : String(c))));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const numeric = headers.map((_, i) => i > 2);
  const line = (r) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function fmtCpu(cpu) {
  const { machine, ...procs } = cpu ?? {};
  const list = Object.entries(procs)
    .map(([k, v]) => `${k} ${v ?? '?'}`)
    .join(', ');
  if (!machine) return list;
  // What the box did beyond the processes listed: other work on the machine competing for the cores.
  const ours = Object.values(procs).reduce((n, v) => n + (v ?? 0), 0);
  const others = Math.max(0, Math.round(machine.busyPercentOfAllCores * machine.cores - ours));
  return `${list}; whole box ${machine.busyPercentOfAllCores}% busy of ${machine.cores} cores (≈ ${others}% of a core not accounted to these)`;
}

function report({ results }, totalSeconds, machine) {
  const S = results.scenarios;
  const C = results.cold;
  const verdict = (ok) => (ok ? 'MET' : 'MISSED');
  const rt = (c) => `${c.roundTrips.min}/${c.roundTrips.median}/${c.roundTrips.max}`;
  const pinned = results.deployment.pinnedBlock;
  const rows = [];
  for (const [name, label] of [
    ['transfer', 'transfer'],
    ['swap', 'approve+swap'],
  ]) {
    const run = (scenario, path, block, r, extra = null) =>
      rows.push([`${label}  ${scenario}`, path, block, r.concurrency, `${r.completed}${r.timeBoundHit ? ' (cut)' : ''}`, r.reqPerSec, r.p50Ms, r.p99Ms, r.maxMs, extra ?? '', r.errors]);
    run('warm', 'gateway', pinned, S[`${name}WarmC1`], 'direct');
    run('warm', 'gateway', 'latest', S[`${name}WarmLatestC1`], 'direct');
    run('warm', 'gateway', pinned, S[`${name}WarmCN`], 'direct');
    run('eth_call', 'node', pinned, S[`${name}NodeEthCallC1`]);
    run('eth_call', 'node', pinned, S[`${name}NodeEthCallCN`]);
    run('debug_traceCall (struct logs)*', 'node', pinned, S[`${name}NodeTraceC1`]);
    run('debug_traceCall (struct logs)*', 'node', pinned, S[`${name}NodeTraceCN`]);
    run('debug_traceCall (no memory/storage)', 'node', pinned, S[`${name}NodeTraceLeanCN`]);
    for (const mode of ['Explicit', 'Latest']) {
      const c = C[`${name}${mode}`];
      const block = mode === 'Explicit' ? 'new head' : 'latest';
      rows.push([`${label}  cold (+${P.proxyDelayMs} ms proxy)`, 'gateway', block, 1, `${c.cold.samples}${c.timeBoundHit ? ' (cut)' : ''}`, '', c.cold.p50Ms, c.cold.p99Ms, c.cold.maxMs, rt(c.cold), c.errors]);
      rows.push([`${label}  same again, warm (proxy)`, 'gateway', block, 1, c.warmRepeat.samples, '', c.warmRepeat.p50Ms, c.warmRepeat.p99Ms, c.warmRepeat.maxMs, rt(c.warmRepeat), '']);
    }
    if (name === 'swap') {
      for (const mode of ['Explicit', 'Latest']) {
        const c = C[`swapUnseen${mode}`];
        const block = mode === 'Explicit' ? 'new head' : 'latest';
        rows.push([`${label}  cold, unseen shape (+${P.proxyDelayMs} ms proxy)`, 'gateway', block, 1, `${c.cold.samples}${c.timeBoundHit ? ' (cut)' : ''}`, '', c.cold.p50Ms, c.cold.p99Ms, c.cold.maxMs, rt(c.cold), c.errors]);
      }
    }
    const e = C.accessListEmulated?.[name];
    if (e) rows.push([`${label}  cold, access list emulated**`, 'gateway', 'new head', 1, `${e.cold.samples}${e.timeBoundHit ? ' (cut)' : ''}`, '', e.cold.p50Ms, e.cold.p99Ms, e.cold.maxMs, rt(e.cold), e.errors]);
  }
  const swapColdMax = Math.max(C.swapExplicit.cold.roundTrips.max, C.swapLatest.cold.roundTrips.max);
  const unseenColdMax = Math.max(C.swapUnseenExplicit.cold.roundTrips.max, C.swapUnseenLatest.cold.roundTrips.max);
  const throughputRatio = S.swapNodeEthCallCN.reqPerSec ? round(S.swapWarmCN.reqPerSec / S.swapNodeEthCallCN.reqPerSec, 2) : null;
  const targets = {
    swapWarmP50: { ms: S.swapWarmC1.p50Ms, target: `<= ${TARGETS.swapWarmP50Ms} ms`, met: S.swapWarmC1.p50Ms !== null && S.swapWarmC1.p50Ms <= TARGETS.swapWarmP50Ms },
    coldSwapRoundTrips: {
      explicitBlock: C.swapExplicit.cold.roundTrips,
      latest: C.swapLatest.cold.roundTrips,
      target: `<= ${TARGETS.coldSwapRoundTrips} per request (every sample)`,
      met: swapColdMax <= TARGETS.coldSwapRoundTrips,
    },
    coldUnseenSwapRoundTrips: {
      explicitBlock: C.swapUnseenExplicit.cold.roundTrips,
      latest: C.swapUnseenLatest.cold.roundTrips,
      target: `<= ${TARGETS.coldUnseenSwapRoundTrips} per request (every sample)`,
      met: unseenColdMax <= TARGETS.coldUnseenSwapRoundTrips,
    },
    swapThroughputVsNodeEthCall: {
      gatewayReqPerSec: S.swapWarmCN.reqPerSec,
      nodeEthCallReqPerSec: S.swapNodeEthCallCN.reqPerSec,
      ratio: throughputRatio,
      concurrency: P.concurrency,
      target: `>= ${TARGETS.swapThroughputVsEthCall} x the node's eth_call of the swap at the same concurrency`,
      met: throughputRatio !== null && throughputRatio >= TARGETS.swapThroughputVsEthCall,
    },
    warmThroughputVsNodeTrace: {
      transfer: { gatewayReqPerSec: S.transferWarmCN.reqPerSec, nodeDebugTraceCallReqPerSec: S.transferNodeTraceCN.reqPerSec },
      swap: { gatewayReqPerSec: S.swapWarmCN.reqPerSec, nodeDebugTraceCallReqPerSec: S.swapNodeTraceCN.reqPerSec },
      target: '>= node debug_traceCall req/s at the same concurrency, both workloads',
      met: S.transferWarmCN.reqPerSec >= S.transferNodeTraceCN.reqPerSec && S.swapWarmCN.reqPerSec >= S.swapNodeTraceCN.reqPerSec,
    },
  };
  const coldRuns = { transferExplicit: C.transferExplicit, transferLatest: C.transferLatest, swapExplicit: C.swapExplicit, swapLatest: C.swapLatest, swapUnseenExplicit: C.swapUnseenExplicit, swapUnseenLatest: C.swapUnseenLatest };
  if (C.accessListEmulated) Object.assign(coldRuns, { transferAccessListEmulated: C.accessListEmulated.transfer, swapAccessListEmulated: C.accessListEmulated.swap });
  const errors = Object.values(S).reduce((n, r) => n + r.errors, 0) + Object.values(coldRuns).reduce((n, r) => n + r.errors, 0);
  const lines = [];
  lines.push('');
  lines.push(`Bundle simulation benchmark — ${startedAt.toISOString()} — ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}`);
  lines.push(`chain: ${machine.chainNode.client} (hardhat ${machine.chainNode.hardhat}, EDR ${machine.chainNode.edr}), chain id 1, ${HARDFORK}; simulation engine @ethereumjs/vm ${machine.ethereumjsVm}`);
  lines.push('');
  lines.push(table(rows, ['scenario', 'path', 'block', 'conc', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'upstream RT min/med/max', 'errors']));
  lines.push('');
  lines.push(`(cut): the run reached its time bound before its request count (throughput runs: BENCH_THROUGHPUT_SECONDS = ${P.throughputSeconds} s; others: BENCH_PHASE_MAX_SECONDS = ${P.phaseMaxSeconds} s).`);
  lines.push('* hardhat refuses debug_traceCall with {tracer: "callTracer"}: the default struct logger (every opcode with stack, memory, storage) is measured;');
  lines.push('  the product would have to derive call frames from it. "direct": that service talks to the node without the proxy, round trips not counted.');
  lines.push(`  warm rows after cold ones: the same request sent again right after the cold one (cache warm), still behind the +${P.proxyDelayMs} ms proxy.`);
  lines.push('** hardhat has no eth_createAccessList (the service then skips access lists for good): these rows use a service behind a proxy that');
  lines.push('   answers it from debug_traceCall in the same round trip, to show what the design does with a node that has it. No target on them.');
  lines.push('');
  lines.push(`swap warm p50 via the gateway (block pinned, concurrency 1) = ${S.swapWarmC1.p50Ms} ms (target <= ${TARGETS.swapWarmP50Ms} ms): ${verdict(targets.swapWarmP50.met)}`);
  lines.push(
    `cold swap upstream round trips = ${rt(C.swapExplicit.cold)} (block explicit), ${rt(C.swapLatest.cold)} (latest) min/median/max (target <= ${TARGETS.coldSwapRoundTrips} on every request): ${verdict(targets.coldSwapRoundTrips.met)}`,
  );
  lines.push(
    `cold unseen-shape swap upstream round trips = ${rt(C.swapUnseenExplicit.cold)} (block explicit), ${rt(C.swapUnseenLatest.cold)} (latest) min/median/max (target <= ${TARGETS.coldUnseenSwapRoundTrips} on every request): ${verdict(targets.coldUnseenSwapRoundTrips.met)}`,
  );
  lines.push(
    `warm swap throughput at concurrency ${P.concurrency}: ${S.swapWarmCN.reqPerSec} simulations/s via the gateway vs the node's eth_call of the swap ${S.swapNodeEthCallCN.reqPerSec}/s = ${throughputRatio}x (target >= ${TARGETS.swapThroughputVsEthCall}x): ${verdict(targets.swapThroughputVsNodeEthCall.met)}`,
  );
  lines.push(
    `warm throughput at concurrency ${P.concurrency}: transfer ${S.transferWarmCN.reqPerSec} vs node debug_traceCall ${S.transferNodeTraceCN.reqPerSec} req/s, swap ${S.swapWarmCN.reqPerSec} vs ${S.swapNodeTraceCN.reqPerSec} req/s (target >=): ${verdict(targets.warmThroughputVsNodeTrace.met)}`,
  );
  lines.push(
    `service processTime p50 (inside the simulation service) at concurrency 1, warm: transfer ${S.transferWarmC1.serviceProcessTimeMs?.p50} ms, swap ${S.swapWarmC1.serviceProcessTimeMs?.p50} ms; ` +
      `cold (explicit block): transfer ${C.transferExplicit.cold.serviceProcessTimeMsP50} ms, swap ${C.swapExplicit.cold.serviceProcessTimeMsP50} ms`,
  );
  const first = results.cold.firstRequests ?? [];
  for (const f of first) lines.push(`first simulation of the cold service (${f.workload}): ${f.roundTrips} round trips, calls ${JSON.stringify(f.byMethod)}`);
  const swapSample = C.swapExplicit.samples[0];
  if (swapSample) lines.push(`one cold swap (explicit block), round trip by round trip:\n${swapSample.perRoundTrip.map((m, i) => `  ${i + 1}) ${m}`).join('\n')}`);
  const aclSample = C.accessListEmulated?.swap.samples[0];
  if (aclSample) lines.push(`the same with eth_createAccessList (emulated):\n${aclSample.perRoundTrip.map((m, i) => `  ${i + 1}) ${m}`).join('\n')}`);
  lines.push(`cold calls per request (explicit block): transfer ${JSON.stringify(C.transferExplicit.cold.callsByMethodPerRequest)}, swap ${JSON.stringify(C.swapExplicit.cold.callsByMethodPerRequest)}`);
  lines.push(`CPU, % of one core, warm swap at concurrency ${P.concurrency}: ${fmtCpu(S.swapWarmCN.cpuPercentOfOneCore)}`);
  lines.push(`                 warm transfer at concurrency ${P.concurrency}: ${fmtCpu(S.transferWarmCN.cpuPercentOfOneCore)}`);
  lines.push(`                 node debug_traceCall swap at concurrency ${P.concurrency}: ${fmtCpu(S.swapNodeTraceCN.cpuPercentOfOneCore)}`);
  const issues = Object.entries(results.childLogs)
    .filter(([, v]) => v.warn + v.error > 0)
    .map(([k, v]) => `${k} ${v.error} error / ${v.warn} warn`);
  lines.push(`child logs: ${issues.length ? issues.join(', ') + ' (samples in the JSON)' : 'no warnings or errors'}`);
  if (profileDir) lines.push(`CPU profiles of the simulation services: ${profileDir}`);
  if (errors > 0) {
    lines.push(`ERRORS: ${errors} failed requests:`);
    for (const [name, r] of Object.entries(S)) if (r.errors) lines.push(`  ${name}: ${JSON.stringify(r.errorsByKind)} e.g. ${r.errorSamples[0]}`);
    for (const [k, r] of Object.entries(coldRuns)) if (r.errors) lines.push(`  cold ${k}: ${r.errors} e.g. ${r.errorSamples[0]}`);
  }
  lines.push(`total ${round(totalSeconds, 1)} s`);
  return { text: lines.join('\n'), targets, errors };
}

// ---------------------------------------------------------------- run

const t0 = performance.now();
await run.complete(async () => {
  const out = await main();
  const totalSeconds = (performance.now() - t0) / 1000;
  const { text, targets, errors } = report(out, totalSeconds, out.machine);
  const json = {
    benchmark: 'simulate',
    startedAt: startedAt.toISOString(),
    totalSeconds: round(totalSeconds, 1),
    command: 'npm run bench:simulate',
    machine: out.machine,
    parameters: {
      ...P,
      database: dbName,
      natsUrl: out.nats.url,
      privateNats: out.nats.private,
      chainNodeUrl: out.node.url,
      gatewayEnv: { RATE_LIMIT_PER_SECOND: 1000000, RATE_LIMIT_BURST: 1000000, LOG_FORMAT: 'json', SIMULATE_TIMEOUT_MS: env.SIMULATE_TIMEOUT_MS ?? '15000 (default)' },
      simulationServiceEnv: {
        RPC_URL_1: 'warm: the node; cold: the delay proxy',
        HARDFORK_1: 'unset: the service picks the fork from mainnet\'s schedule (osaka/bpo2 at the node\'s time)',
        SIM_CACHE_MAX_MB: env.SIM_CACHE_MAX_MB ?? '256 (default)',
        SIM_UPSTREAM_TIMEOUT_MS: env.SIM_UPSTREAM_TIMEOUT_MS ?? '10000 (default)',
        SIM_RPC_BATCH_MAX: env.SIM_RPC_BATCH_MAX ?? '200 (default)',
      },
      cpuProfile: process.env.BENCH_CPU_PROF === '1' ? profileDir : null,
      workloads: {
        transfer: `tokenA.transfer(recipient, ${TRANSFER_AMOUNT}) from the deployer`,
        swap: `tokenA.approve(router, ${SWAP_AMOUNT_IN}) then router.swapExactTokensForTokens(${SWAP_AMOUNT_IN}, 0, [tokenA, tokenB], deployer, ${DEADLINE}) from the deployer (allowance 0 on chain); pool ${POOL}/${POOL}`,
        swapUnseen: 'the approve + swap from a new random sender every request (tokenA balanceOf[sender] set by a storage override): a bundle shape never seen before (cold rows only)',
        nodeSwap: 'router.swapExactTokensForTokens from a second account that approved the router on chain (eth_call and debug_traceCall take one call)',
        nodeTracer: 'debug_traceCall with no tracer option (hardhat refuses callTracer): the struct logger with stack, memory and storage',
        cold: 'evm_mine before each sample, so the new head is in no cache; block explicit (= new head) or omitted (latest)',
      },
    },
    targets,
    errors,
    deployment: out.results.deployment,
    scenarios: out.results.scenarios,
    cold: out.results.cold,
    proxyTotals: out.results.proxyTotals,
    sampleAnswers: out.results.sampleAnswers,
    childLogs: out.results.childLogs,
  };
  return { path: RESULTS, json, text, errors, targetsMet: Object.values(targets).every((t) => t.met) };
});
