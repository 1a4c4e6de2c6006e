import { ErrorName } from '@tradeinfra/contracts';
import { ServiceError } from '@tradeinfra/service-kit';

export enum LedgerErrorCode {
  Invalid = 'INVALID',
  /** An unknown source, or one the viewer may not see. */
  NotFound = 'NOT_FOUND',
  /** A source registered to another tenant. */
  Conflict = 'CONFLICT',
}

/** The one error type of the ledger (entries, sources, cashback); the RPC filter sends its payload. */
export class LedgerError extends ServiceError<LedgerErrorCode> {
  protected errorName(code: LedgerErrorCode): ErrorName {
    switch (code) {
      case LedgerErrorCode.Invalid:
        return ErrorName.Validation;
      case LedgerErrorCode.NotFound:
        return ErrorName.NotFound;
      case LedgerErrorCode.Conflict:
        return ErrorName.Conflict;
    }
  }
}

export function invalidField(path: string, message: string): LedgerError {
  return new LedgerError(LedgerErrorCode.Invalid, `${path}: ${message}`, [{ path, message }]);
}
