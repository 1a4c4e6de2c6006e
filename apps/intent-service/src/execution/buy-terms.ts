import { type IntentStatusData, type UnsignedTransaction } from '@tradeinfra/contracts';
import { type FailureReason, type Quote } from './checks.js';
import { type ClaimedIntent } from './execution.types.js';

/** An intent that fails this round, with the values its check measured (the notification's `data`). */
export interface Failure {
  id: string;
  reason: FailureReason;
  detail: string;
  data?: IntentStatusData;
}

export interface Job {
  intent: ClaimedIntent;
  tx: UnsignedTransaction;
}

/**
 * The senders' state at the round's head, as this round's earlier buys leave it (the planner
 * updates it). Keys: sender addresses as stored; `wrapped` by lowercase wallet.
 */
export interface SenderState {
  /** Next nonce per sender (the node's pending nonce, past the sender's buys still out). */
  nonce: Map<string, bigint>;
  /** Native balance per sender. */
  balance: Map<string, bigint>;
  /** Wallet intents: the wrapped native each wallet holds and allows the executor. */
  wrapped: Map<string, { balance: bigint; allowance: bigint }>;
  /** Wallet intents whose executor nonce is used or revoked. */
  nonceSpent: Set<string>;
}

/** Terms of one checked buy, shared by both kinds of intent. */
export interface BuyTerms {
  targetBlock: bigint;
  /** The buy goes right behind a pending launch, in its block. */
  inLaunchBlock: boolean;
  /** Behind a pending launch: the pair it gives its first liquidity. */
  launchPair: string | null;
  probeGas: bigint;
  maxFeePerGas: bigint;
  tip: bigint;
  token: string;
  router: string;
  quote: Quote;
}

/** The transaction of one buy, and the summary its signer checks (amounts as decimal strings). */
export function buyTransaction(
  t: BuyTerms,
  b: {
    chainId: number;
    from: string;
    nonce: bigint;
    /** null: the buy runs as init code (a bot intent); else the executor contract (a wallet intent). */
    to: string | null;
    value: bigint;
    data: string;
    gasLimit: bigint;
    amountOutMin: bigint;
    feeRecipient: string | null;
    bribe: bigint;
    deadline: bigint;
    onlyInBlock: bigint | null;
    onlyInLaunchBlockOf: string | null;
  },
): UnsignedTransaction {
  const { quote } = t;
  return {
    purpose: 'buy',
    type: 2,
    chainId: b.chainId,
    from: b.from,
    nonce: Number(b.nonce),
    to: b.to,
    value: b.value.toString(),
    data: b.data,
    gasLimit: b.gasLimit.toString(),
    maxFeePerGas: t.maxFeePerGas.toString(),
    maxPriorityFeePerGas: t.tip.toString(),
    accessList: [],
    summary: {
      router: t.router,
      token: t.token,
      swapValue: quote.swapValue.toString(),
      amountOutMin: b.amountOutMin.toString(),
      expectedOut: quote.expectedOut.toString(),
      fee: quote.fee.toString(),
      feeRecipient: b.feeRecipient,
      bribe: b.bribe.toString(),
      deadline: b.deadline.toString(),
      onlyInBlock: b.onlyInBlock === null ? null : b.onlyInBlock.toString(),
      onlyInLaunchBlockOf: b.onlyInLaunchBlockOf,
    },
  };
}
