// Parameters (env), targets and the run of the simulate bench, shared by its parts.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { withDefaults } from '../../../scripts/lib.mjs';
import { BenchRun, ROOT, envInt, resultsPath, runNodeScript, startHardhatNode } from '../harness/index.js';
import { JsonRpc, JsonRpcProxy } from '@tradeinfra/test-support';
import { Interface } from 'ethers';

export const RESULTS = resultsPath('simulate');

// ---------------------------------------------------------------- parameters

export const P = {
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
export const TARGETS = { swapWarmP50Ms: 10, coldSwapRoundTrips: 4, coldUnseenSwapRoundTrips: 3, swapThroughputVsEthCall: 0.5 };
/** The node's fork: today's mainnet. The simulation service picks it by itself (no HARDFORK_1), from mainnet's schedule. */
export const HARDFORK = 'osaka';
export const DEADLINE = 4_102_444_800n; // 2100-01-01: swaps never expire during the run
export const SUPPLY = 10n ** 27n; // each test token's total supply (18 decimals: 1e9 tokens)
export const POOL = 10n ** 24n; // liquidity per side of the tokenA/tokenB pool
export const POOL_ETH = 10n ** 21n; // 1000 ETH against POOL tokenA in the tokenA/WETH pool
export const TRANSFER_AMOUNT = 1000n;
export const SWAP_AMOUNT_IN = 10n ** 18n;

export const env = withDefaults(process.env);
export const startedAt = new Date();
export const run = new BenchRun({ name: 'sim', env, maxSeconds: P.maxSeconds, applicationName: 'bench' });
export const { tmp, children } = run;
/** Every delay proxy started (closed on cleanup); `proxy` is the one the running cold service uses. */
export const proxies: JsonRpcProxy[] = [];
export const state: { proxy: JsonRpcProxy | null; profileDir: string | null } = { proxy: null, profileDir: null };
run.onCleanup(() => Promise.all(proxies.map((p) => p.close())));

// ---------------------------------------------------------------- small helpers

export const pool = (database: string, max?: number) => run.pool(database, max);
export const runNode = (script: string, args: string[], childEnv: NodeJS.ProcessEnv) => runNodeScript(script, args, childEnv);
export const step = (title: string) => run.step(title);

export const hex = (n: bigint | number | string) => `0x${BigInt(n).toString(16)}`;

export function median(values: number[]) {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The built apps (apps/<name>/dist/main.js), gateway and simulation service included. */
export function productApps() {
  const apps = readdirSync(join(ROOT, 'apps'))
    .filter((a) => existsSync(join(ROOT, 'apps', a, 'dist/main.js')))
    .sort();
  for (const required of ['gateway', 'simulation-service']) {
    if (!apps.includes(required)) throw new Error(`apps/${required}/dist/main.js is missing: build first (npx turbo run build)`);
  }
  return apps;
}

// ---------------------------------------------------------------- JSON-RPC to the node (setup, mining)

export const rpc = (url: string, method: string, params: unknown[] = []): Promise<any> => new JsonRpc(url).call(method, params);

// ---------------------------------------------------------------- the node

/** The reference node: chain id 1, Osaka, base fee 0, automine. */
export function startHardhat() {
  const network = { chainId: 1, hardfork: HARDFORK, initialBaseFeePerGas: 0, allowBlocksWithSameTimestamp: true };
  return startHardhatNode({ children, dir: join(tmp, 'hardhat'), network });
}

export function artifact(path: string) {
  const json = JSON.parse(readFileSync(join(ROOT, 'node_modules', path), 'utf8'));
  const bytecode = json.bytecode ?? json.evm?.bytecode?.object;
  if (!bytecode) throw new Error(`${path} has no bytecode`);
  return { iface: new Interface(json.abi), bytecode: bytecode.startsWith('0x') ? bytecode : `0x${bytecode}` };
}
