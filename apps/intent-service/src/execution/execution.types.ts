import type { IntentStatusData, LaunchType, StateUpdate } from '@tradeinfra/contracts';
import type { CheckedIntent } from './checks.js';

/** What the executor reads (ExecutionRepository) and hands to its transitions of the intents (IntentsRepository). */

/** A token whose launch was seen, with pending intents no replica is working on. */
export interface LaunchedToken {
  /** As the intents spell it (EIP-55). */
  token: string;
  pair: string;
  /** The launch block; null for a launch still pending. */
  blockNumber: bigint | null;
  seenAt: Date | null;
  /** A launch seen in the mempool and not yet in a block: the pool as it will leave it. */
  pending: PendingLaunchState | null;
  /** What the intents acted on at this launch record as their `launch`. */
  launch: LaunchStamp;
}

/** The launch an intent was acted on at, as its row keeps it (the block comes from `intent.launches`). */
export interface LaunchStamp {
  type: LaunchType;
  txHash: string | null;
}

export interface PendingLaunchState {
  txHash: string;
  /** The launch transaction's signed bytes. */
  raw: string;
  tokenReserve: bigint;
  nativeReserve: bigint;
  /** The state after the launch transaction, as simulation overrides. */
  stateAfter: StateUpdate;
}

/** A claimed intent: what the checks read, and what building and signing its buy need. */
export interface ClaimedIntent extends CheckedIntent {
  tenantId: string;
  /** As created (EIP-55): the token a wallet intent's signature names. */
  tokenAddress: string;
  feeRecipient: string | null;
  firstOrFail: boolean;
  gasTip: string | null;
  /** Unix seconds. */
  expiry: bigint;
  webhookUrl: string | null;
  /** The signing webhook takes batches (SigningBatchRequest). */
  webhookBatch: boolean;
  /** What the signing webhook speaks: Merkle's signature webhook, or ours (SigningRequest). */
  webhookProtocol: 'merkle' | 'tradeinfra';
  /** A wallet intent's EIP-712 signature (null: a bot intent). */
  signature: string | null;
  /** A wallet intent's executor nonce (decimal); null for Merkle's 5-field BuyIntent. */
  nonce: string | null;
}

/** A submitted buy whose outcome the chain has not shown yet. */
export interface SubmittedIntent {
  id: string;
  /** The buy's sender: the wallet, or a wallet intent's relayer. */
  wallet: string;
  txHash: string;
  signedTx: string;
  nonce: bigint;
  targetBlock: bigint;
  firstOrFail: boolean;
  expiry: bigint;
  /** The intent's bribe: with the id, its checking order among a launch's buys. */
  bribe: bigint;
  /**
   * The signed bytes of the launch transaction the buy was sent behind, while that launch is
   * still pending (seen in the mempool, its block not recorded): the buy can only land behind
   * it, in its block, so it is sent again behind it. Null otherwise.
   */
  behind: string | null;
  /**
   * The block of the pending launch the buy was sent behind, once that launch is recorded mined
   * (a buy of a later round, after the launch was mined, has none); else null.
   */
  launchBlock: bigint | null;
}

export interface Outcome {
  id: string;
  status: 'completed' | 'failed' | 'expired';
  reason: string | null;
  executedAt: Date | null;
  /** The intent's new statusData (e.g. `{txHash}`). */
  data: IntentStatusData | null;
}

export interface ToSubmit {
  id: string;
  /** The buy's sender (lowercase): the wallet, or a wallet intent's relayer. */
  wallet: string;
  nonce: bigint;
  raw: string;
  hash: string;
}
