import type { MessagePort } from 'node:worker_threads';
import type { SimulateRequest, SimulatedCall, SimulationResult } from '@tradeinfra/contracts';
import { ChainError, type ChainErrorCode } from '../chain/chain.errors.js';
import type { ChainConfig } from '../config/env.js';
import type { SimulationStats } from '../engine/simulator.js';
import { SimulationError, type SimulationErrorCode } from '../simulation/simulation.errors.js';

/** One simulation handed to a worker. */
export interface SimTask {
  request: SimulateRequest;
  chain: ChainConfig;
  hasAccessLists: boolean;
  /**
   * The deadline as a high-resolution epoch time (performance.timeOrigin + performance.now(): each
   * thread has its own origin), so time spent queued for a worker counts.
   */
  deadlineEpochMs: number;
  maxCallGas: number;
  id: string;
  /** Where the worker asks the main thread for chain state (and tells it the first call's result, with `streamFirst`). */
  port: MessagePort;
  /** Post the first call's result on `port` as soon as it is final (a WorkerFirstCall). */
  streamFirst?: boolean;
}

/**
 * Sent once per worker at start: each waits until all `of` have arrived (so each is on its own
 * worker), which tells the pool every worker has loaded the EVM.
 */
export interface WarmupTask {
  warmup: true;
  /** The wall clock's time (ms) as the pool asked: the warm-up block's timestamp picks today's rules. */
  now: number;
  arrived: SharedArrayBuffer;
  of: number;
  timeoutMs: number;
}

/** The first call's result, final, posted by a worker while the rest still runs (SimTask.streamFirst). */
export interface WorkerFirstCall {
  op: 'first';
  call: SimulatedCall;
  blockNumber: bigint;
}

/** What a worker asks the main thread for (chain state is read and cached there). */
export type WorkerAsk =
  | { seq: number; op: 'block'; number: bigint | null }
  | { seq: number; op: 'fetch'; block: bigint; keys: string[] }
  | { seq: number; op: 'accessList'; block: bigint; calls: { from: string; to: string | null; data: string; value?: bigint }[] };

/**
 * An error crossing threads, by kind: a ChainError's parts (the worker's RemoteChain rejects with
 * it as the main thread's ChainState did), a SimulationError's, or any other error's message.
 */
export type WireError =
  | { kind: 'chain'; code: ChainErrorCode; message: string; details: Record<string, unknown> | null }
  | { kind: 'simulation'; code: SimulationErrorCode; message: string; details: unknown }
  | { kind: 'other'; message: string };

export interface MainAnswer {
  seq: number;
  value?: unknown;
  error?: WireError;
}

export type SimOutcome = { ok: true; result: SimulationResult; stats: SimulationStats } | { ok: false; error: WireError; stats: SimulationStats };

export function toWire(err: unknown): WireError {
  if (err instanceof ChainError) return { kind: 'chain', code: err.code, message: err.message, details: err.details };
  if (err instanceof SimulationError) return { kind: 'simulation', code: err.code, message: err.message, details: err.details };
  return { kind: 'other', message: (err as Error)?.message ?? String(err) };
}

export function fromWire(error: WireError): Error {
  switch (error.kind) {
    case 'chain':
      return new ChainError(error.code, error.message, error.details);
    case 'simulation':
      return new SimulationError(error.code, error.message, error.details);
    case 'other':
      return new Error(error.message);
  }
}
