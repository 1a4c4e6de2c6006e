import { ErrorName } from '@tradeinfra/contracts';
import { ServiceError } from '@tradeinfra/service-kit';

export enum SimulationErrorCode {
  /** Bad input the schema cannot see (unknown chain, block in the future). */
  Invalid = 'INVALID',
  /** A simulation rule failed (nonce mismatch, intrinsic gas, funds): the spec's `Error`. */
  Rule = 'RULE',
  /** The chain's RPC failed or timed out. */
  Upstream = 'UPSTREAM',
  /** The simulation ran past its time bound. */
  Timeout = 'TIMEOUT',
  /** Valid, but past what this service does for one request (upstream reads, result size). */
  Unprocessable = 'UNPROCESSABLE',
}

export class SimulationError extends ServiceError<SimulationErrorCode> {
  protected errorName(code: SimulationErrorCode): ErrorName {
    switch (code) {
      case SimulationErrorCode.Invalid:
        return ErrorName.Validation;
      case SimulationErrorCode.Rule:
        return ErrorName.Rule;
      case SimulationErrorCode.Upstream:
        return ErrorName.Upstream;
      case SimulationErrorCode.Timeout:
        return ErrorName.Timeout;
      case SimulationErrorCode.Unprocessable:
        return ErrorName.Unprocessable;
    }
  }
}

export function invalid(path: string, message: string): SimulationError {
  return new SimulationError(SimulationErrorCode.Invalid, `${path}: ${message}`, [{ path, message }]);
}

/** The simulation did not finish within SIM_TIMEOUT_MS (an endless loop, a slow upstream). */
export function simulationTimeout(timeoutMs: number): SimulationError {
  return new SimulationError(SimulationErrorCode.Timeout, `The simulation did not finish within ${timeoutMs} ms (SIM_TIMEOUT_MS)`, {
    reason: 'simulation_timeout',
    timeoutMs,
  });
}
