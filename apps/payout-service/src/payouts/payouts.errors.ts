import { ErrorName } from '@tradeinfra/contracts';
import { ServiceError } from '@tradeinfra/service-kit';

export enum PayoutErrorCode {
  Invalid = 'INVALID',
  NotFound = 'NOT_FOUND',
  /** Illegal transition, nothing to pay out, below the minimum. */
  Conflict = 'CONFLICT',
}

/** The one error type of the payout domain; the RPC filter sends its payload. */
export class PayoutError extends ServiceError<PayoutErrorCode> {
  protected errorName(code: PayoutErrorCode): ErrorName {
    switch (code) {
      case PayoutErrorCode.Invalid:
        return ErrorName.Validation;
      case PayoutErrorCode.NotFound:
        return ErrorName.NotFound;
      case PayoutErrorCode.Conflict:
        return ErrorName.Conflict;
    }
  }
}

export function invalidField(path: string, message: string): PayoutError {
  return new PayoutError(PayoutErrorCode.Invalid, `${path}: ${message}`, [{ path, message }]);
}
