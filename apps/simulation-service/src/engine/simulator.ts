import { randomUUID } from 'node:crypto';
import type { Address } from '@ethereumjs/util';
import type { SimulateRequest, SimulatedCall, SimulationResult } from '@tradeinfra/contracts';
import { LRUCache } from 'lru-cache';
import type { BlockEnv, ChainSource, ReadBudget } from '../chain/chain-state.js';
import { SimulationError, SimulationErrorCode } from '../simulation/simulation.errors.js';
import { blockFor } from './block-env.js';
import { BundleReads } from './bundle-reads.js';
import { carriedKeys, namedAddresses, preimagesOf, shapeOf, staticKeys, validateCalls } from './bundle-plan.js';
import { applyOverrides, runCall } from './call-runner.js';
import { installFastInterpreter } from './fast-interpreter.js';
import { ForkedStateManager } from './forked-state-manager.js';
import { rulesFor } from './hardforks.js';
import { installJumpAnalysisCache } from './jump-analysis-cache.js';
import { checkDeadline, DeadlineExceeded, timeout, type SimContext } from './sim-context.js';
import { hexOf } from './state-update.js';
import { TransferTracker } from './transfer-tracker.js';
import { acquireVm, bind, releaseVm } from './vm-pool.js';

export interface SimulateOptions {
  /** Absolute deadline (performance.now() ms) for the whole simulation. */
  deadline: number;
  /** Per-call gas cap; 0: none beyond the block gas limit and the fork's transaction gas cap. */
  maxCallGas: number;
  /** The simulation's id (a UUID); one is made when omitted. */
  id?: string;
  /** Upstream reads this simulation may make (SIM_MAX_UPSTREAM_READS); none: unbounded. */
  budget?: ReadBudget;
  /**
   * Called once with the first call's result as soon as it is final: it read nothing it had to
   * assume, or the reads it assumed turned out right (a later run starts after it). Never called
   * when the simulation fails before.
   */
  onFirstCall?: (call: SimulatedCall, blockNumber: bigint) => void;
}

/** What a simulation did besides its answer (for logs and benchmarks). */
export interface SimulationStats {
  /** Runs of the bundle (the first, and one per batch of misses whose assumptions were wrong). */
  rounds: number;
  /** Rounds of upstream batches for misses (a batch sent early, while later calls ran, counts with the one after the run; the block header and the prefetch come on top). */
  fetches: number;
  /** Calls run in all (a resumed run runs only the calls from the first one that assumed wrong). */
  callRuns: number;
  rules: string;
  /** Milliseconds spent waiting for the chain (the block, the prefetch, the batches for misses); the rest is the EVM's. */
  upstreamMs?: number;
}

/**
 * What the last bundle of each shape read, and the addresses it named: a cold block then needs
 * one batch, not a round per level, and so does the same kind of bundle on other addresses (a
 * new token launched through the same router; see carriedKeys).
 */
const remembered = new LRUCache<string, { keys: string[]; named: Map<string, string>; preimages: Map<string, readonly [string, string]> }>({ max: 10_000 });

/**
 * Runs a bundle on one chain's state at one block: calls in order on one shared state, each as a
 * transaction with gas price 0 (the sender's nonce increments), in `eth_call`'s environment at
 * that block. Reads never wait: assumptions are checked after the run, which resumes from the
 * first call that assumed wrong (see BundleReads, docs/design/simulation-internals.md).
 */
export async function simulateBundle(
  chain: ChainSource,
  request: SimulateRequest,
  options: SimulateOptions,
  stats?: SimulationStats,
): Promise<SimulationResult> {
  await Promise.all([installJumpAnalysisCache(), installFastInterpreter()]);
  const started = performance.now();
  const id = options.id ?? randomUUID();
  const named = namedAddresses(request);
  const { exact: shape, loose } = shapeOf(chain.config.chainId, request, named);
  const own = staticKeys(request, named);
  const last = remembered.get(shape) ?? remembered.get(loose);
  const known = last ? [...new Set([...carriedKeys(last.keys, last.named, named, last.preimages), ...own])] : undefined;

  // The block, and (with the block named) what this shape read last time in the same round
  // trip; an unknown shape gets its calls' senders, targets and named addresses, and, where the
  // upstream has it, its access lists (fetched with the first misses).
  let block: BlockEnv;
  let reads: BundleReads;
  const extra: string[] = [];
  const waitStart = performance.now();
  if (request.blockNumber !== null) {
    reads = new BundleReads(chain, request.blockNumber, options.budget);
    const accessLists =
      !known && chain.hasAccessLists ? chain.accessListKeys(request.blockNumber, request.calls, options.budget).catch(() => []) : Promise.resolve([]);
    [block] = await Promise.all([
      chain.block(request.blockNumber, options.budget),
      reads.prefetch(known ?? own),
      accessLists.then((keys) => extra.push(...keys)),
    ]);
  } else {
    block = await chain.block(null, options.budget);
    reads = new BundleReads(chain, block.number, options.budget);
    extra.push(...(known ?? own));
  }

  let upstreamMs = performance.now() - waitStart;
  const rules = rulesFor(chain.config, block);
  const gasCap = validateCalls(request.calls, rules, block, options.maxCallGas);
  const simBlock = blockFor(block, rules);
  const state = new ForkedStateManager(reads);
  const vm = await acquireVm(rules);
  const context: SimContext = { tracker: new TransferTracker(), deadline: options.deadline, jumps: 0, reads };
  bind(vm, state, context);

  const out: SimulatedCall[] = [];
  /** State depth before each call (before its own overrides). */
  const marks: number[] = [];
  let from = 0;
  let rounds = 0;
  let callRuns = 0;
  let firstTold = !options.onFirstCall;
  let yieldBetweenCalls = false;
  /** Set once the simulation has answered or failed: nothing is told after. */
  let over = false;
  const tellFirst = () => {
    firstTold = true;
    try {
      options.onFirstCall!(out[0]!, block.number);
    } catch {
      // Telling is a head start only: the answer carries the same call.
    }
  };
  try {
    for (;;) {
      checkDeadline(options.deadline);
      rounds++;
      reads.beginRound();
      if (from === 0) {
        state.truncate(0);
        state.pushLayer();
        reads.call = 0;
        await applyOverrides(state, request.overrides);
      } else {
        state.truncate(marks[from]!);
      }
      out.length = from;
      // A call the rules refuse (nonce, funds) may only look refused because of an assumption.
      let refused: SimulationError | null = null;
      for (let i = from; i < request.calls.length; i++) {
        reads.call = i;
        marks[i] = state.depth;
        callRuns++;
        try {
          out[i] = await runCall(vm, state, reads, simBlock, request.calls[i]!, i, gasCap, context);
          // What this call could not read goes upstream now, while the later calls run.
          if (i < request.calls.length - 1) reads.fetchEarly();
          if (i === 0 && !firstTold) {
            if (reads.missCount === 0) tellFirst();
            else {
              // Told once what it assumed comes back as assumed (the later calls yield to let the answer in).
              const round = rounds;
              yieldBetweenCalls = true;
              void reads.confirmed(0).then((right) => {
                if (right && !firstTold && !over && rounds === round) tellFirst();
              });
            }
          } else if (yieldBetweenCalls && !firstTold) {
            await new Promise((resolve) => setImmediate(resolve));
          }
        } catch (err) {
          if (err instanceof SimulationError && err.code === SimulationErrorCode.Rule) {
            refused = err;
            break;
          }
          throw err;
        }
      }
      if (reads.missCount === 0) {
        if (refused) throw refused;
        break;
      }
      checkDeadline(options.deadline);
      const fetchStart = performance.now();
      const wrong = await reads.fetchMisses(extra.splice(0));
      upstreamMs += performance.now() - fetchStart;
      if (!firstTold && out.length > 0 && wrong !== 0) tellFirst(); // what the first call assumed was right
      if (wrong === -1) {
        if (refused) throw refused;
        break;
      }
      from = wrong;
    }
  } catch (err) {
    over = true;
    if (err instanceof DeadlineExceeded) throw timeout();
    // A call the rules refused left the VM clean (refused before its transaction, or rolled back
    // by runTx); any other error may have left it mid-transaction: it is dropped.
    if (err instanceof SimulationError && err.code === SimulationErrorCode.Rule) releaseVm(rules, vm);
    throw err;
  }
  over = true;
  releaseVm(rules, vm);
  const keys = [...reads.touched];
  const memory = { keys, named, preimages: preimagesOf(keys, reads.preimages) };
  remembered.set(shape, memory);
  if (loose !== shape) remembered.set(loose, memory);
  if (stats) Object.assign(stats, { rounds, fetches: reads.fetches, callRuns, rules: rules.label, upstreamMs });
  return {
    id,
    chainId: chain.config.chainId,
    blockNumber: hexOf(block.number),
    processTime: Math.round(performance.now() - started),
    calls: out,
  };
}

export type { Address };
