import type { getOpcodesForHF } from '@ethereumjs/evm';
import { SimulationError, SimulationErrorCode } from '../simulation/simulation.errors.js';
import type { BundleReads } from './bundle-reads.js';
import type { TransferTracker } from './transfer-tracker.js';

export type RunState = Parameters<NonNullable<ReturnType<ReturnType<typeof getOpcodesForHF>['handlers']['get']>>>[0];

/** What the instrumented opcodes and the event handlers need of the simulation a VM runs now. */
export interface SimContext {
  tracker: TransferTracker;
  deadline: number;
  jumps: number;
  reads: BundleReads;
}

/** Where a VM's EVM carries the context of the simulation it runs now. */
export const SIM = Symbol('simulation');
export type WithContext = { [SIM]: SimContext };

/** The context of the simulation an opcode runs in (found through its EVM). */
export const contextOf = (runState: RunState) => (runState.interpreter as unknown as { _evm: WithContext })._evm[SIM];

/** Thrown inside the EVM (JUMP/JUMPI) when the deadline has passed; the simulation answers {@link timeout}. */
export class DeadlineExceeded extends Error {}

export function checkDeadline(deadline: number): void {
  if (performance.now() > deadline) throw timeout();
}

export function timeout(): SimulationError {
  return new SimulationError(SimulationErrorCode.Timeout, 'The simulation ran past its time limit');
}
