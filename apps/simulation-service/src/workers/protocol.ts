import type { MessagePort } from 'node:worker_threads';
import type { SimulateRequest, SimulationResult } from '@tradeinfra/contracts';
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
  /** Where the worker asks the main thread for chain state. */
  port: MessagePort;
}

/**
 * Sent once per worker at start: each waits until all `of` have arrived (so each is on its own
 * worker), which tells the pool every worker has loaded the EVM.
 */
export interface WarmupTask {
  warmup: true;
  arrived: SharedArrayBuffer;
  of: number;
  timeoutMs: number;
}

/** What a worker asks the main thread for (chain state is read and cached there). */
export type WorkerAsk =
  | { seq: number; op: 'block'; number: bigint | null }
  | { seq: number; op: 'fetch'; block: bigint; keys: string[] }
  | { seq: number; op: 'accessList'; block: bigint; calls: { from: string; to: string | null; data: string; value?: bigint }[] };

/** An error crossing threads: a SimulationError's parts (code null: any other error). */
export interface WireError {
  code: SimulationErrorCode | null;
  message: string;
  details: unknown;
}

export interface MainAnswer {
  seq: number;
  value?: unknown;
  error?: WireError;
}

export type SimOutcome = { ok: true; result: SimulationResult; stats: SimulationStats } | { ok: false; error: WireError; stats: SimulationStats };

export function toWire(err: unknown): WireError {
  if (err instanceof SimulationError) return { code: err.code, message: err.message, details: err.details };
  return { code: null, message: (err as Error)?.message ?? String(err), details: null };
}

export function fromWire(error: WireError): Error {
  return error.code === null ? new Error(error.message) : new SimulationError(error.code, error.message, error.details);
}
