import { ErrorName, type RpcErrorPayload } from '@tradeinfra/contracts';

export enum PayoutErrorCode {
  Invalid = 'INVALID',
  NotFound = 'NOT_FOUND',
  /** Illegal transition, nothing to pay out, below the minimum. */
  Conflict = 'CONFLICT',
}

/** The one error type of the payout domain; the RPC filter sends its payload. */
export class PayoutError extends Error {
  constructor(
    readonly code: PayoutErrorCode,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
  }

  toPayload(): RpcErrorPayload {
    const name =
      this.code === PayoutErrorCode.Invalid ? ErrorName.Validation : this.code === PayoutErrorCode.NotFound ? ErrorName.NotFound : ErrorName.Conflict;
    return { name, message: this.message, details: this.details };
  }
}

export function invalidField(path: string, message: string): PayoutError {
  return new PayoutError(PayoutErrorCode.Invalid, `${path}: ${message}`, [{ path, message }]);
}
