import { ErrorName } from '@tradeinfra/contracts';
import { ServiceError } from '@tradeinfra/service-kit/plain';
import { ChainError, ChainErrorCode } from '../chain/chain.errors.js';

export enum SimulationErrorCode {
  /** Bad input the schema cannot see (unknown chain, block in the future, init code too large). */
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

/**
 * The simulation's error for an error of the chain layer (the boundary between chain/ and the
 * feature): an unknown chain or block is the client's input; an upstream that fails, times out
 * or answers wrong is a 502; a spent read budget is a 422 `upstream_budget_exceeded`.
 */
export function fromChainError(err: ChainError): SimulationError {
  switch (err.code) {
    case ChainErrorCode.UnknownChain:
      return invalid('chainId', err.message);
    case ChainErrorCode.UnknownBlock:
      return invalid('blockNumber', err.message);
    case ChainErrorCode.Unreachable:
    case ChainErrorCode.Timeout:
    case ChainErrorCode.BadAnswer:
      return new SimulationError(SimulationErrorCode.Upstream, err.message);
    case ChainErrorCode.ReadBudgetSpent:
      return new SimulationError(SimulationErrorCode.Unprocessable, err.message, { reason: 'upstream_budget_exceeded', ...err.details });
  }
}

/** An error as the simulation feature sends it: a chain error becomes the simulation's, anything else is left as it is. */
export function asSimulationError(err: unknown): unknown {
  return err instanceof ChainError ? fromChainError(err) : err;
}
