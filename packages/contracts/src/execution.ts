/**
 * The signing webhook: at launch the intent service POSTs a SigningRequest to the intent's
 * `webhookUrl` with headers `x-signing-request-id`, `x-signing-timestamp` (unix seconds) and
 * `x-signing-signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` (the tenant's
 * secret, as for notifications). The webhook answers, before `deadline`, with status 2xx and
 * `{"signedTransactions": ["0x02…"]}`: each transaction of the request, in order, signed by the
 * wallet and serialised (EIP-2718). Anything else fails the intent with a reason.
 */
export interface SigningRequest {
  kind: 'sign';
  /** Unique per request. */
  id: string;
  intentId: string;
  chainId: number;
  /** EIP-55. */
  wallet: string;
  /**
   * Decimal block numbers: the launch state (the newest block when the buy was checked and
   * built; the token's liquidity is there), and the block the buy is meant for (the next one).
   */
  launchBlock: string;
  targetBlock: string;
  /** Unix milliseconds: answers arriving later are not used. */
  deadline: number;
  transactions: UnsignedTransaction[];
}

/** An EIP-1559 transaction to sign exactly as given (no access list). Amounts are decimal strings. */
export interface UnsignedTransaction {
  /** What the transaction does: `buy` (the one kind so far). */
  purpose: 'buy';
  type: 2;
  chainId: number;
  from: string;
  nonce: number;
  /** null: a contract creation (the buy runs as init code; see the README). */
  to: string | null;
  value: string;
  data: string;
  gasLimit: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  accessList: [];
  /** What the buy will do, decoded for the signer to check before signing. */
  summary: BuySummary;
}

export interface BuySummary {
  router: string;
  token: string;
  /** Wei into the swap (buyAmount − fee). */
  swapValue: string;
  /** Fewest tokens the wallet accepts (after any token tax); fewer reverts the buy. */
  amountOutMin: string;
  /** Tokens the wallet is expected to receive. */
  expectedOut: string;
  fee: string;
  feeRecipient: string | null;
  /** Wei paid to the block's builder, only if the buy succeeds. */
  bribe: string;
  /** Unix seconds after which the buy reverts (the intent's expiry). */
  deadline: string;
  /** The only block that may include it (firstOrFail), else null. */
  onlyInBlock: string | null;
}

/** Reasons (`statusReason`) an intent fails at or after launch. */
export const INTENT_FAILURE_REASONS = [
  'nothing_to_buy',
  'min_in_not_met',
  'liquidity_unknown',
  'liquidity_too_low',
  'buy_reverted',
  'buy_tax_too_high',
  'sell_tax_too_high',
  'honeypot',
  'min_out_not_met',
  'slippage_too_high',
  'insufficient_funds',
  'no_signer',
  'signer_unreachable',
  'signer_timeout',
  'signer_refused',
  'signature_invalid',
  'submission_rejected',
  'reverted',
  'not_included',
  'nonce_used',
] as const;
