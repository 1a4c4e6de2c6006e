import type { IntentStatusData, LaunchType, StateUpdate, WaitingAgainReason } from '@tradeinfra/contracts';
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
  /** A launch still pending as its buys are sent: its transaction's sender (lowercase) and nonce. */
  pendingFrom?: LaunchOrigin | null;
  /** Its block, for a launch in a block (null: pending). */
  block?: bigint | null;
}

/** Who sent a pending launch transaction, and with which nonce. */
export interface LaunchOrigin {
  sender: string;
  nonce: bigint;
}

export interface PendingLaunchState {
  txHash: string;
  /** The launch transaction's signed bytes. */
  raw: string;
  /** Its sender (lowercase) and nonce. */
  origin: LaunchOrigin;
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
  /**
   * The pending launch transaction the buy was sent behind, with its sender and nonce, whatever
   * became of it (null: the buy was sent at a launch already in a block). See buy-follower.ts.
   */
  sentBehind: (LaunchOrigin & { txHash: string }) | null;
  /** The row already holds its launch's block (written as the buy was sent at a launch in a block). */
  launchStamped: boolean;
  /** Otherwise, the token's launch as the block watcher recorded it (any transaction), or null. */
  tokenLaunch: { txHash: string | null; block: bigint } | null;
}

/** A submitted buy that waits again: the launch it was sent behind never happened. */
export interface WaitingAgain {
  id: string;
  /** The buy's hash (the row changes only while it still holds this buy). */
  txHash: string;
  reason: WaitingAgainReason;
  launchTxHash: string;
}

export interface Outcome {
  id: string;
  status: 'completed' | 'failed' | 'expired';
  reason: string | null;
  executedAt: Date | null;
  /** The intent's new statusData (e.g. `{txHash}`). */
  data: IntentStatusData | null;
  /** The launch the buy's outcome came at, when the row does not know its block yet (it is written with the outcome). */
  launch?: { txHash: string | null; block: bigint };
}

export interface ToSubmit {
  id: string;
  /** The buy's sender (lowercase): the wallet, or a wallet intent's relayer. */
  wallet: string;
  nonce: bigint;
  raw: string;
  hash: string;
}
