import { ErrorName } from '@tradeinfra/contracts';
import { ServiceError } from '@tradeinfra/service-kit';

export enum IntentErrorCode {
  NotFound = 'NOT_FOUND',
  NotPending = 'NOT_PENDING',
  IdempotencyKeyReused = 'IDEMPOTENCY_KEY_REUSED',
  BadCursor = 'BAD_CURSOR',
  /** A wallet intent whose signature does not recover to its wallet, or on a chain without an executor. */
  BadWalletIntent = 'BAD_WALLET_INTENT',
  /** An exit whose followsIntentId names no completed buy of the same chain, wallet and token. */
  BadExit = 'BAD_EXIT',
}

/** The one error type the intent domain throws; the RPC filter turns it into the wire error. */
export class IntentError extends ServiceError<IntentErrorCode> {
  protected errorName(code: IntentErrorCode): ErrorName {
    switch (code) {
      case IntentErrorCode.NotFound:
        return ErrorName.NotFound;
      case IntentErrorCode.NotPending:
      case IntentErrorCode.IdempotencyKeyReused:
        return ErrorName.Conflict;
      case IntentErrorCode.BadCursor:
      case IntentErrorCode.BadWalletIntent:
      case IntentErrorCode.BadExit:
        return ErrorName.Validation;
    }
  }
}
