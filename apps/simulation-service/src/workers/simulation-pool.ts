import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { SimulateRequest, SimulatedCall, SimulationResult } from '@tradeinfra/contracts';
import { Piscina } from 'piscina';
import type { ChainState, ReadBudget } from '../chain/chain-state.js';
import type { SimulationStats } from '../engine/simulator.js';
import { simulationTimeout, SimulationError, SimulationErrorCode } from '../simulation/simulation.errors.js';
import { fromWire, toWire, type MainAnswer, type SimOutcome, type SimTask, type WarmupTask, type WorkerAsk, type WorkerFirstCall } from './protocol.js';
import { type Clock } from '../common/clock.js';

export interface PoolSettings {
  workers: number;
  /** The answer's bound: a simulation still running then is answered 504 `simulation_timeout`. */
  timeoutMs: number;
  /** How long a worker past the bound may take to stop by itself before it is terminated. */
  killGraceMs: number;
  cacheMb: number;
  /** The wall clock (the service's CLOCK). */
  now: Clock;
}

/**
 * The compiled worker. Under jest the service runs from src/, the worker always from dist/
 * (a worker thread loads plain JavaScript): `npm test` builds first.
 */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  const file = here
    .replace(/[\\/]src[\\/]workers[\\/]simulation-pool\.[cm]?[jt]s$/, '/dist/workers/sim-worker.js')
    .replace(/simulation-pool\.js$/, 'sim-worker.js');
  if (!existsSync(file)) throw new Error(`the simulation worker ${file} is missing: build the simulation service first (npm run build)`);
  return file;
}

/**
 * Runs the EVM in a pool of worker threads (piscina), one simulation per worker, so a run that
 * never ends holds a worker, never the service. Past SIM_TIMEOUT_MS the answer is a 504; a worker
 * still busy SIM_KILL_GRACE_MS later is terminated (docs/design/simulation-internals.md).
 */
export class SimulationPool {
  private readonly pool: Piscina<SimTask | WarmupTask, SimOutcome | boolean>;

  constructor(private readonly settings: PoolSettings) {
    this.pool = new Piscina<SimTask | WarmupTask, SimOutcome | boolean>({
      filename: workerFile(),
      minThreads: settings.workers,
      maxThreads: settings.workers,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      concurrentTasksPerWorker: 1,
      // The worker waits on its port for chain state within a task: never a blocking Atomics.wait.
      atomics: 'async',
      workerData: { cacheMb: settings.cacheMb },
    });
  }

  /**
   * Resolves once every worker has loaded the EVM (a fresh thread takes a second or more): the
   * service answers no simulation before, so none spends its deadline waiting for a thread.
   */
  async ready(timeoutMs = 120_000): Promise<void> {
    const arrived = new SharedArrayBuffer(4);
    const of = this.settings.workers;
    const now = this.settings.now();
    const all = await Promise.all(Array.from({ length: of }, () => this.pool.run({ warmup: true, now, arrived, of, timeoutMs })));
    if (!all.every(Boolean)) throw new Error(`the simulation workers did not all start within ${timeoutMs} ms`);
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /** Simulates on a worker; rejects with a SimulationError (timeout, rules, …) or the chain layer's ChainError (upstream, read budget, …). */
  async run(
    chain: ChainState,
    request: SimulateRequest,
    options: { id: string; maxCallGas: number; budget: ReadBudget; started: number },
    stats: SimulationStats,
    /** Given the first call's result as soon as it is final (see SimulateOptions.onFirstCall). */
    onFirstCall?: (call: SimulatedCall, blockNumber: bigint) => void,
  ): Promise<SimulationResult> {
    const { port1, port2 } = new MessageChannel();
    const elapsed = performance.now() - options.started;
    const remainingMs = Math.max(1, this.settings.timeoutMs - elapsed);
    const abort = new AbortController();
    let timedOut = false;
    let soft: NodeJS.Timeout | undefined;
    let hard: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      soft = setTimeout(() => {
        timedOut = true;
        reject(simulationTimeout(this.settings.timeoutMs));
        hard = setTimeout(() => abort.abort(), this.settings.killGraceMs);
      }, remainingMs);
    });
    let firstTold = false;
    serve(
      port1,
      chain,
      options.budget,
      () => timedOut,
      this.settings.timeoutMs,
      (first) => {
        if (timedOut || firstTold) return;
        firstTold = true;
        onFirstCall?.(first.call, first.blockNumber);
      },
    );
    const task: SimTask = {
      request,
      chain: chain.config,
      hasAccessLists: chain.hasAccessLists,
      deadlineEpochMs: performance.timeOrigin + options.started + this.settings.timeoutMs,
      maxCallGas: options.maxCallGas,
      id: options.id,
      port: port2,
      ...(onFirstCall ? { streamFirst: true } : {}),
    };
    const running = (this.pool.run(task, { transferList: [port2] as never, signal: abort.signal }) as Promise<SimOutcome>).finally(() => {
      clearTimeout(soft);
      clearTimeout(hard);
      port1.close();
    });
    running.catch(() => undefined);
    const outcome = await Promise.race([running, expired]).catch((err: unknown) => {
      if (timedOut || (err as Error).name === 'AbortError') throw simulationTimeout(this.settings.timeoutMs);
      throw err;
    });
    Object.assign(stats, outcome.stats);
    if (!outcome.ok) {
      const error = fromWire(outcome.error);
      throw error instanceof SimulationError && error.code === SimulationErrorCode.Timeout ? simulationTimeout(this.settings.timeoutMs) : error;
    }
    // The worker's message with the first call travels apart from its answer and may come after it
    // (or never, once the port is closed): told from the answer then, so it is always told first.
    if (onFirstCall && !firstTold && outcome.result.calls[0]) onFirstCall(outcome.result.calls[0], BigInt(outcome.result.blockNumber));
    return outcome.result;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

/** Answers a worker's questions from the main thread's ChainState, within the simulation's budget. */
function serve(
  port: MessagePort,
  chain: ChainState,
  budget: ReadBudget,
  timedOut: () => boolean,
  timeoutMs: number,
  onFirst: (first: WorkerFirstCall) => void,
): void {
  port.on('message', (ask: WorkerAsk | WorkerFirstCall) => {
    if (ask.op === 'first') return onFirst(ask);
    const answer = async (): Promise<unknown> => {
      switch (ask.op) {
        case 'block':
          return chain.block(ask.number, budget);
        case 'fetch':
          return chain.fetchMisses(ask.block, ask.keys, budget);
        case 'accessList':
          return chain.accessListKeys(ask.block, ask.calls, budget);
      }
    };
    answer().then(
      (value) => port.postMessage({ seq: ask.seq, value } satisfies MainAnswer),
      (err: unknown) => port.postMessage({ seq: ask.seq, error: toWire(timedOut() ? simulationTimeout(timeoutMs) : err) } satisfies MainAnswer),
    );
  });
}
