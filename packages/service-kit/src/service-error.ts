import type { ErrorName, RpcErrorPayload } from '@tradeinfra/contracts';

/**
 * What every service's coded error is: a code of the service's own, the message the client
 * reads, and optional details. Each service names the wire error of each of its codes in one
 * exhaustive switch ({@link ServiceError.errorName}); the RPC filter sends {@link toPayload}.
 */
export abstract class ServiceError<Code extends string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
  }

  /** The wire error name (packages/contracts' `ErrorName`) of a code of this service. */
  protected abstract errorName(code: Code): ErrorName;

  toPayload(): RpcErrorPayload {
    return { name: this.errorName(this.code), message: this.message, details: this.details };
  }
}
