export enum ChainErrorCode {
  /** No RPC is configured for the chain. */
  UnknownChain = 'UNKNOWN_CHAIN',
  /** The upstream has no such block (one in the future). */
  UnknownBlock = 'UNKNOWN_BLOCK',
  /** The upstream could not be reached, or failed the request as a whole (connection, HTTP status). */
  Unreachable = 'UNREACHABLE',
  /** The upstream did not answer within SIM_UPSTREAM_TIMEOUT_MS. */
  Timeout = 'TIMEOUT',
  /** The upstream answered, but not with what was asked (not JSON, no answer to a request, an error object, no head block). */
  BadAnswer = 'BAD_ANSWER',
  /** A read would take the simulation past its upstream reads (SIM_MAX_UPSTREAM_READS); `details`: `{limit, used, wanted}`. */
  ReadBudgetSpent = 'READ_BUDGET_SPENT',
}

/**
 * The one error type of the chain layer (reading chain state over JSON-RPC). It knows nothing of
 * the wire: the simulation feature maps each code to its own error (`fromChainError`).
 */
export class ChainError extends Error {
  constructor(
    readonly code: ChainErrorCode,
    message: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(message);
  }
}
