import type { LaunchType } from './intent-vocabulary.js';
/**
 * The signing webhook's request: POSTed at launch to the intent's `webhookUrl`, HMAC-signed
 * (`x-signing-*` headers, the tenant's secret); answered before `deadline` with 2xx and
 * `{"signedTransactions": [...]}`, each transaction signed by the wallet, in order
 * (docs/design/code-notes.md#signing-webhook).
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

/**
 * The batch signing request (intents with `webhookBatch: true`): one tenant's buys for the same
 * `webhookUrl` at a launch (at most SIGNING_BATCH_MAX), answered `{"signedTransactions": [...]}`
 * with one entry per request, in order, or `null` to decline that buy (`signer_refused`).
 */
export interface SigningBatchRequest {
  kind: 'signBatch';
  /** Unique per request. */
  id: string;
  chainId: number;
  /** As in SigningRequest: the launch state and the block the buys are meant for (decimal). */
  launchBlock: string;
  targetBlock: string;
  /** Unix milliseconds: answers arriving later are not used. */
  deadline: number;
  requests: {
    intentId: string;
    /** EIP-55. */
    wallet: string;
    /** Exactly one (the intent's buy). */
    transactions: UnsignedTransaction[];
  }[];
}

/**
 * Merkle's signature webhook (docs.merkle.io, Snipe → Webhooks → Signature webhook): what a
 * signing webhook gets for an intent with `webhookProtocol: "merkle"` (the default). The webhook
 * signs `hash` with the wallet's key and answers, within the deadline, `{"signature": "0x…"}`: 65
 * bytes r ‖ s ‖ v, v being 0x1b or 0x1c (not the 64-byte compact form). The same headers as ours
 * come with it (`x-signing-request-id`, `x-signing-timestamp`, `x-signing-signature`).
 */
export interface MerkleSigningRequest {
  intentId: string;
  launch: {
    type: LaunchType;
    /** Decimal: the launch's block; for a launch still pending, the block its buys are sent for. */
    blockNumber: string;
    /** The launch transaction (null only for a pair found already liquid). */
    launchTxHash: string | null;
  };
  /** The EIP-1559 transaction to sign; quantities as 0x-hex. `to` is null: the buy is a contract creation (docs/design/buy-transaction.md). */
  tx: {
    to: string | null;
    data: string;
    value: string;
    chainId: string;
    gas: string;
    nonce: string;
    maxFeePerGas: string;
    maxPriorityFeePerGas: string;
  };
  /** The unsigned transaction serialised (0x02 ‖ rlp): sent when the launch is a transaction, as Merkle's page says. */
  rawTx?: string;
  /** keccak256(rawTx): the EIP-1559 signing hash to sign. */
  hash: string;
}

/** Most buys one SigningBatchRequest asks for (a launch's larger batches are split). */
export const SIGNING_BATCH_MAX = 50;

/** An EIP-1559 transaction to sign exactly as given (no access list). Amounts are decimal strings. */
export interface UnsignedTransaction {
  /** What the transaction does: `buy`, or an exit's `approve` (of the router) and `sell`. */
  purpose: 'buy' | 'approve' | 'sell';
  type: 2;
  chainId: number;
  from: string;
  nonce: number;
  /** null: a contract creation (the buy runs as init code; docs/design/buy-transaction.md). */
  to: string | null;
  value: string;
  data: string;
  gasLimit: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  accessList: [];
  /** What the buy will do, decoded for the signer to check before signing (an exit's approve and sell: see ExitTransaction). */
  summary: BuySummary;
}

/** An exit's transaction to sign (docs/api/exits.md): the router's approve, or the sell; no summary (`null`). */
export type ExitTransaction = Omit<UnsignedTransaction, 'purpose' | 'summary'> & { purpose: 'approve' | 'sell'; summary: null };

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
  /** The only block that may include it (firstOrFail, a launch seen in a block), else null. */
  onlyInBlock: string | null;
  /**
   * firstOrFail behind a launch still pending: the pair whose first liquidity must come in the
   * block that includes the buy (the launch's block, whichever it turns out to be), else null.
   */
  onlyInLaunchBlockOf: string | null;
}

/** Reasons (`statusReason`) an intent fails at or after launch: the one list, by name. */
export const FailureReason = {
  NothingToBuy: 'nothing_to_buy',
  MinInNotMet: 'min_in_not_met',
  LiquidityUnknown: 'liquidity_unknown',
  LiquidityTooLow: 'liquidity_too_low',
  BuyReverted: 'buy_reverted',
  BuyTaxTooHigh: 'buy_tax_too_high',
  SellTaxTooHigh: 'sell_tax_too_high',
  Honeypot: 'honeypot',
  MinOutNotMet: 'min_out_not_met',
  SlippageTooHigh: 'slippage_too_high',
  InsufficientFunds: 'insufficient_funds',
  NoSigner: 'no_signer',
  SignerUnreachable: 'signer_unreachable',
  SignerTimeout: 'signer_timeout',
  SignerRefused: 'signer_refused',
  SignatureInvalid: 'signature_invalid',
  SubmissionRejected: 'submission_rejected',
  Reverted: 'reverted',
  NotIncluded: 'not_included',
  NonceUsed: 'nonce_used',
  AllowanceTooLow: 'allowance_too_low',
} as const;
export type FailureReason = (typeof FailureReason)[keyof typeof FailureReason];
export type IntentFailureReason = FailureReason;

/** Every failure reason. */
export const INTENT_FAILURE_REASONS: readonly IntentFailureReason[] = Object.values(FailureReason);
