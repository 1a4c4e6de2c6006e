// Parameters (env), targets, the run and the chain helpers of the launch bench, shared by its parts.
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { withDefaults } from '../../../scripts/lib.mjs';
import { BenchRun, ROOT, envInt, percentile, resultsPath, round, runNodeScript, startHardhatNode } from '../harness/index.js';
import { JsonRpc } from '@tradeinfra/test-support';
import { Interface, type InterfaceAbi } from 'ethers';

export const RESULTS = resultsPath('launch');
export const MNEMONIC = 'test test test test test test test test test test test junk';
export const CHAIN_ID = 31337;
export const HARDFORK = 'prague';
export const BLOCK_GAS_LIMIT = 1_000_000_000;
export const ETH = 10n ** 18n;
export const SUPPLY = 10n ** 27n; // each launch token's supply (18 decimals: 1e9 tokens)
export const POOL_TOKENS = 10n ** 26n; // tokens into the launch pool
export const POOL_ETH = 100n * ETH; // wei into the launch pool
export const BUY_AMOUNT = 10n ** 15n; // 0.001 ETH per intent: 1,000 buys move the pool by 1 %
export const BRIBE_BASE = 1_000_000n; // intent i of a launch bids BRIBE_BASE + (N - i) wei: checked in creation order

// ---------------------------------------------------------------- parameters

export const P = {
  small: envInt('BENCH_LAUNCH_SMALL', 100, { max: 10_000 }),
  large: envInt('BENCH_LAUNCH_LARGE', 1000, { max: 10_000 }),
  smallRuns: envInt('BENCH_LAUNCH_RUNS', 10, { min: 0, max: 1000 }),
  largeRuns: envInt('BENCH_LAUNCH_LARGE_RUNS', 5, { min: 0, max: 1000 }),
  /** Launches seen pending (MEMPOOL_LAUNCHES): of BENCH_LAUNCH_SMALL intents each. */
  pendingRuns: envInt('BENCH_LAUNCH_PENDING_RUNS', 10, { min: 0, max: 1000 }),
  /** Launches seen pending with the buys sent through a relay (RELAY_URLS): of BENCH_LAUNCH_SMALL intents each. */
  relayRuns: envInt('BENCH_LAUNCH_RELAY_RUNS', 5, { min: 0, max: 1000 }),
  /** The relay scenario also runs its launches with Merkle's signature webhook, in turn with today's protocol (BENCH_LAUNCH_RELAY_MERKLE=0: not). */
  relayMerkle: process.env.BENCH_LAUNCH_RELAY_MERKLE !== '0',
  /** How the intent service follows the mempool in the pending scenario: ws (eth_subscribe) or poll (a filter). */
  mempool: process.env.BENCH_MEMPOOL === 'poll' ? 'poll' : 'ws',
  warmup: envInt('BENCH_LAUNCH_WARMUP', 1, { min: 0, max: 100 }),
  wallets: envInt('BENCH_LAUNCH_WALLETS', 100, { max: 1000 }),
  signerThreads: envInt('BENCH_SIGNER_THREADS', 0, { min: 0, max: 16 }),
  /** Intents ask their signing webhook for batches (`webhookBatch: true`); BENCH_WEBHOOK_BATCH=0: one request per buy. */
  webhookBatch: process.env.BENCH_WEBHOOK_BATCH !== '0',
  createConcurrency: envInt('BENCH_CREATE_CONCURRENCY', 16, { max: 256 }),
  mempoolPollMs: envInt('BENCH_MEMPOOL_POLL_MS', 5, { max: 1000 }),
  servicePollMs: envInt('BENCH_LAUNCH_POLL_INTERVAL_MS', 20, { max: 60_000 }),
  signerTimeoutMs: envInt('BENCH_SIGNER_TIMEOUT_MS', 2000, { max: 60_000 }),
  /** How long the buys wait in the mempool before the bench mines them (a block time; 0: at once). */
  mineDelayMs: envInt('BENCH_MINE_DELAY_MS', 0, { min: 0, max: 60_000 }),
  launchTimeoutSeconds: envInt('BENCH_LAUNCH_TIMEOUT_SECONDS', 60, { max: 3600 }),
  maxSeconds: envInt('BENCH_MAX_SECONDS', 600, { max: 24 * 3600 }),
  /** The intent service has the node's WebSocket (WS_URL) from the start, for new heads and for sending buys one by one; the block scenario keeps MEMPOOL_LAUNCHES off. BENCH_LAUNCH_WS=0: HTTP only until the pending scenario. */
  ws: process.env.BENCH_LAUNCH_WS !== '0',
  /** The services reach the node through the timing proxy (an extra loopback hop per request). */
  rpcTiming: process.env.BENCH_RPC_TIMING === '1',
  /** The intent and simulation services run with --cpu-prof (profiles kept in a temp directory). */
  cpuProfile: process.env.BENCH_CPU_PROF === '1',
};
export const TARGETS = { smallP50Ms: 150, smallP99Ms: 150, pendingP50Ms: 150 };

export const env = withDefaults(process.env);
export const startedAt = new Date();
export const run = new BenchRun({ name: 'launch', env, maxSeconds: P.maxSeconds, applicationName: 'bench' });
export const { tmp, children } = run;
/** Where the services' CPU profiles go (BENCH_CPU_PROF=1), once the first is started. */
export const state: { profileDir: string | null } = { profileDir: null };
export const step = (title: string) => run.step(title);

/** `node [--cpu-prof …] apps/<app>/dist/main.js` */
export function serviceArgs(app: string): string[] {
  const main = join(ROOT, 'apps', app, 'dist/main.js');
  if (!P.cpuProfile) return [main];
  state.profileDir ??= mkdtempSync(join(os.tmpdir(), 'ti-bench-launch-prof-'));
  // Nest re-raises SIGTERM after its shutdown hooks, and a process killed by a signal writes no
  // profile: exit normally on SIGTERM instead (this listener runs first).
  return [
    '--cpu-prof',
    '--cpu-prof-dir',
    // A directory per service, with V8's own file names: one profile per thread (the simulation workers' too).
    join(state.profileDir, app),
    '--import',
    'data:text/javascript,process.on("SIGTERM",()=>process.exit(0))',
    main,
  ];
}

export const runNode = (script: string, args: string[], childEnv: NodeJS.ProcessEnv) => runNodeScript(script, args, childEnv);
export const hex = (n: bigint | number | string) => `0x${BigInt(n).toString(16)}`;

export interface Stats {
  n: number;
  min: number | null;
  p50: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

/** Percentiles of the numbers among `values` (the rest ignored). */
export function stats(values: unknown[]): Stats {
  const s = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (s.length === 0) return { n: 0, p50: null, p99: null, max: null, min: null, mean: null };
  return {
    n: s.length,
    min: round(s[0], 2),
    p50: round(percentile(s, 50), 2),
    p99: round(percentile(s, 99), 2),
    max: round(s[s.length - 1], 2),
    mean: round(s.reduce((a, b) => a + b, 0) / s.length, 2),
  };
}

// ---------------------------------------------------------------- JSON-RPC to the node

let nodeRpc: JsonRpc | null = null;

/** A call to the bench's node (started by {@link startHardhat}). */
export function rpc<T = any>(method: string, params: unknown[] = []): Promise<T> {
  if (!nodeRpc) throw new Error('the node is not started');
  return nodeRpc.call<T>(method, params);
}

/** `hardhat node` from node_modules, started directly, on a free port; no automine. */
export async function startHardhat() {
  const network = {
    chainId: CHAIN_ID,
    hardfork: HARDFORK,
    initialBaseFeePerGas: 0,
    allowBlocksWithSameTimestamp: true,
    blockGasLimit: BLOCK_GAS_LIMIT,
    mining: { auto: false, interval: 0, mempool: { order: 'fifo' } },
    accounts: { mnemonic: MNEMONIC, count: P.wallets + 1 },
  };
  const node = await startHardhatNode({ children, dir: join(tmp, 'hardhat'), network, readyTimeoutMs: 90_000 });
  nodeRpc = node.rpc;
  return node;
}

export interface Artifact {
  iface: Interface;
  bytecode: string;
}

/** A compiled contract from an npm package (`@uniswap/…/build/X.json`). */
export function artifact(path: string): Artifact {
  const json = JSON.parse(readFileSync(join(ROOT, 'node_modules', path), 'utf8')) as {
    abi: InterfaceAbi;
    bytecode?: string;
    evm?: { bytecode?: { object?: string } };
  };
  const bytecode = json.bytecode ?? json.evm?.bytecode?.object;
  if (!bytecode) throw new Error(`${path} has no bytecode`);
  return { iface: new Interface(json.abi), bytecode: bytecode.startsWith('0x') ? bytecode : `0x${bytecode}` };
}

export interface Receipt {
  status: string;
  blockNumber: string;
  contractAddress: string | null;
  gasUsed: string;
}

/** Sends from an unlocked account, mines it (the node does not automine) and checks the receipt. */
export async function mined(from: string, to: string | null, data: string, value = 0n): Promise<Receipt> {
  const hash = await rpc<string>('eth_sendTransaction', [{ from, ...(to ? { to } : {}), data, gas: hex(10_000_000), ...(value ? { value: hex(value) } : {}) }]);
  await rpc('evm_mine');
  const receipt = await rpc<Receipt | null>('eth_getTransactionReceipt', [hash]);
  if (!receipt || receipt.status !== '0x1') throw new Error(`setup transaction ${hash} failed: ${JSON.stringify(receipt)?.slice(0, 300)}`);
  return receipt;
}

/** The built apps (apps/<name>/dist/main.js). */
export function productApps() {
  const apps = readdirSync(join(ROOT, 'apps'))
    .filter((a) => existsSync(join(ROOT, 'apps', a, 'dist/main.js')))
    .sort();
  for (const required of ['gateway', 'intent-service', 'simulation-service']) {
    if (!apps.includes(required)) throw new Error(`apps/${required}/dist/main.js is missing: build first (npx turbo run build)`);
  }
  return apps;
}

/** Which code was measured: the commit, the files changed since, and when the intent service was built. */
export function codeVersion() {
  const git = (args: string[]) => {
    const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : null;
  };
  let builtAt: string | null = null;
  try {
    builtAt = statSync(join(ROOT, 'apps/intent-service/dist/execution/executor.js')).mtime.toISOString();
  } catch {
    // not built
  }
  const changed = git(['status', '--porcelain']);
  return { commit: git(['rev-parse', 'HEAD']), changedFiles: changed === null ? null : changed.split('\n').filter(Boolean), intentServiceBuiltAt: builtAt };
}
