import { workerData } from 'piscina';
import { installFastInterpreter } from '../engine/fast-interpreter.js';
import { installJumpAnalysisCache } from '../engine/jump-analysis-cache.js';
import { simulateBundle, type SimulationStats } from '../engine/simulator.js';
import { KECCAK256_NULL } from '@ethereumjs/util';
import { parseInput, SimulateRequestSchema, type SimulatedCall } from '@tradeinfra/contracts';
import type { AccountState, BlockEnv, ChainSource } from '../chain/chain-state.js';
import { toWire, type SimOutcome, type SimTask, type WarmupTask, type WorkerFirstCall } from './protocol.js';
import { RemoteChain, WorkerChainCache } from './remote-chain.js';

/**
 * A simulation worker (a piscina thread): runs bundles on the EVM, one at a time, reading chain
 * state through the main thread. Loaded once per thread: ethereumjs and its patches are ready
 * before the first task.
 */
await Promise.all([installJumpAnalysisCache(), installFastInterpreter()]);

const cacheBytes = ((workerData as { cacheMb?: number } | undefined)?.cacheMb ?? 256) * 1024 * 1024;
const caches = new Map<number, WorkerChainCache>();

export default async function simulate(task: SimTask | WarmupTask): Promise<SimOutcome | boolean> {
  if ('warmup' in task) return warmup(task);
  const deadline = task.deadlineEpochMs - performance.timeOrigin;
  let cache = caches.get(task.chain.chainId);
  if (!cache) caches.set(task.chain.chainId, (cache = new WorkerChainCache(cacheBytes)));
  const chain = new RemoteChain(task.chain, task.hasAccessLists, task.port, cache);
  const stats: SimulationStats = { rounds: 0, fetches: 0, callRuns: 0, rules: '-' };
  try {
    const onFirstCall = task.streamFirst
      ? (call: SimulatedCall, blockNumber: bigint) => task.port.postMessage({ op: 'first', call, blockNumber } satisfies WorkerFirstCall)
      : undefined;
    const result = await simulateBundle(chain, task.request, { deadline, maxCallGas: task.maxCallGas, id: task.id, onFirstCall }, stats);
    return { ok: true, result, stats };
  } catch (err) {
    return { ok: false, error: toWire(err), stats };
  } finally {
    chain.close();
  }
}

async function warmup(task: WarmupTask): Promise<boolean> {
  await warmEvm(task.now).catch(() => undefined);
  const arrived = new Int32Array(task.arrived);
  Atomics.add(arrived, 0, 1);
  const until = performance.now() + task.timeoutMs;
  while (Atomics.load(arrived, 0) < task.of) {
    if (performance.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/**
 * One transfer on an empty chain of today's mainnet rules, on the worker's own: a fresh worker's
 * first simulation otherwise pays for building a VM and compiling the interpreter's hot paths
 * (a tenth of a second, several on a busy machine).
 */
async function warmEvm(now: number): Promise<void> {
  const absent: AccountState = { exists: false, balance: 0n, nonce: 0n, code: new Uint8Array(0), codeHash: KECCAK256_NULL };
  const block: BlockEnv = {
    number: 1n,
    hash: `0x${'11'.repeat(32)}`,
    timestamp: BigInt(Math.floor(now / 1000)),
    gasLimit: 60_000_000n,
    baseFeePerGas: 0n,
    coinbase: `0x${'00'.repeat(20)}`,
    mixHash: `0x${'00'.repeat(32)}`,
    difficulty: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: `0x${'00'.repeat(32)}`,
  };
  const empty: ChainSource = {
    config: { chainId: 1, rpcUrls: ['http://127.0.0.1'], hardfork: null },
    hasAccessLists: false,
    block: async () => block,
    accessListKeys: async () => [],
    cachedAccount: () => absent,
    cachedStorage: () => new Uint8Array(0),
    cachedBlockHash: () => new Uint8Array(32),
    lastKnownAccount: () => undefined,
    lastKnownStorage: () => undefined,
    fetchMisses: async () => new Map(),
  };
  const request = parseInput(SimulateRequestSchema, { chainId: 1, blockNumber: 1, calls: [{ from: `0x${'00'.repeat(19)}a1`, to: `0x${'00'.repeat(19)}a2` }] });
  await simulateBundle(empty, request, { deadline: performance.now() + 10_000, maxCallGas: 0 });
}
