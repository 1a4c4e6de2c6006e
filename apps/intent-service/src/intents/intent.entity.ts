import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Storage shape of an intent. Never leaves the service: replies and events carry the
 * contracts' IntentRecord, built by the SQL function `intent.record_json` (see the migration).
 */
@Entity({ name: 'intents', schema: 'intent' })
@Index('intents_search_idx', ['tenantId', 'wallet', 'status', 'id'])
@Index('intents_tenant_status_idx', ['tenantId', 'status', 'id'])
@Index('intents_pending_expiry_idx', ['expiresAt'], { where: "status = 'pending'" })
/** (chain_id, lower(token_address)) WHERE pending: an expression index, created by the migration. */
@Index('intents_pending_token_idx', { synchronize: false })
@Index('intents_submitted_idx', ['chainId'], { where: "status = 'pending' AND phase = 'submitted'" })
@Check('intents_phase_check', "phase IN ('claimed', 'submitted')")
@Check('intents_wallet_intent_check', 'signature IS NOT NULL OR intent_nonce IS NULL')
@Check('intents_webhook_protocol_check', "webhook_protocol IN ('merkle', 'tradeinfra')")
@Check('intents_status_check', "status IN ('pending', 'completed', 'expired', 'failed', 'cancelled', 'error')")
@Index('intents_pending_exits_idx', ['chainId'], { where: "status = 'pending' AND is_exit" })
@Check('intents_fired_trigger_check', "fired_trigger IN ('take_profit', 'stop_loss', 'trailing_stop', 'on_rug')")
@Check('intents_launch_type_check', "launch_type IN ('public_transaction', 'private_transaction', 'block')")
export class IntentEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @Column('text')
  status!: string;

  @Column('integer', { name: 'chain_id' })
  chainId!: number;

  @Column('text')
  wallet!: string;

  @Column('text', { name: 'token_address' })
  tokenAddress!: string;

  @Column('numeric', { precision: 78, scale: 0 })
  bribe!: string;

  @Column('numeric', { name: 'buy_amount', precision: 78, scale: 0 })
  buyAmount!: string;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;

  @Column('numeric', { name: 'max_buy_tax', nullable: true })
  maxBuyTax!: string | null;

  @Column('numeric', { name: 'max_sell_tax', nullable: true })
  maxSellTax!: string | null;

  @Column('numeric', { name: 'min_in', precision: 78, scale: 0, nullable: true })
  minIn!: string | null;

  @Column('numeric', { name: 'min_out', precision: 78, scale: 0, nullable: true })
  minOut!: string | null;

  @Column('numeric', { name: 'min_liquidity', precision: 78, scale: 0, nullable: true })
  minLiquidity!: string | null;

  @Column('integer', { name: 'fee_bps', nullable: true })
  feeBps!: number | null;

  @Column('text', { name: 'fee_recipient', nullable: true })
  feeRecipient!: string | null;

  @Column('boolean', { name: 'first_or_fail', nullable: true })
  firstOrFail!: boolean | null;

  @Column('integer', { name: 'max_slippage_bps', nullable: true })
  maxSlippageBps!: number | null;

  @Column('numeric', { name: 'gas_tip', precision: 78, scale: 0, nullable: true })
  gasTip!: string | null;

  @Column('text', { name: 'tx_hash', nullable: true })
  txHash!: string | null;

  @Column('timestamptz', { name: 'executed_at', nullable: true })
  executedAt!: Date | null;

  @Column('text', { name: 'status_reason', nullable: true })
  statusReason!: string | null;

  /** The measured values behind the latest status change (the notification's `data`); null when none. */
  @Column('jsonb', { name: 'status_data', nullable: true })
  statusData!: Record<string, string | number> | null;

  @Column('text', { name: 'notification_webhook_url', nullable: true })
  notificationWebhookUrl!: string | null;

  /** Signing webhook: receives the unsigned buy, answers with it signed by the wallet. */
  @Column('text', { name: 'webhook_url', nullable: true })
  webhookUrl!: string | null;

  /** The signing webhook takes batches (one request for the buys of a launch that name it). */
  @Column('boolean', { name: 'webhook_batch', nullable: true })
  webhookBatch!: boolean | null;

  /** What the signing webhook speaks: `merkle` (Merkle's signature webhook) or `tradeinfra` (ours). */
  @Column('text', { name: 'webhook_protocol', nullable: true })
  webhookProtocol!: 'merkle' | 'tradeinfra' | null;

  /** Execution progress while pending: null, 'claimed' (checking/signing) or 'submitted'. */
  @Column('text', { nullable: true })
  phase!: string | null;

  @Column('uuid', { name: 'claim_token', nullable: true })
  claimToken!: string | null;

  @Column('timestamptz', { name: 'claimed_at', nullable: true })
  claimedAt!: Date | null;

  /** The submitted buy, signed (raw transaction hex). */
  @Column('text', { name: 'signed_tx', nullable: true })
  signedTx!: string | null;

  /** A sent exit's signed approve, sent again with its sell. */
  @Column('text', { name: 'signed_approve_tx', nullable: true })
  signedApproveTx!: string | null;

  @Column('bigint', { name: 'tx_nonce', nullable: true })
  txNonce!: string | null;

  /** The block the buy was first submitted for (firstOrFail: the only one). */
  @Column('bigint', { name: 'target_block', nullable: true })
  targetBlock!: string | null;

  @Column('timestamptz', { name: 'submitted_at', nullable: true })
  submittedAt!: Date | null;

  /** A wallet intent's EIP-712 signature (null: a bot intent, signed at launch by its webhook). */
  @Column('text', { nullable: true })
  signature!: string | null;

  /** A wallet intent's one-use executor nonce; null for Merkle's 5-field BuyIntent (spent by its struct hash). */
  @Column('numeric', { name: 'intent_nonce', precision: 78, scale: 0, nullable: true })
  intentNonce!: string | null;

  /** Who sent the submitted buy when not the wallet (a wallet intent's relayer). */
  @Column('text', { name: 'tx_sender', nullable: true })
  txSender!: string | null;

  /** How the launch the intent was acted on at reached the executor (the record's `launch.type`). */
  @Column('text', { name: 'launch_type', nullable: true })
  launchType!: 'public_transaction' | 'private_transaction' | 'block' | null;

  /** That launch's transaction. */
  @Column('text', { name: 'launch_tx_hash', nullable: true })
  launchTxHash!: string | null;

  /** A buy sent behind a pending launch: that launch transaction's sender (lowercase) and nonce. */
  @Column('text', { name: 'launch_sender', nullable: true })
  launchSender!: string | null;

  @Column('bigint', { name: 'launch_nonce', nullable: true })
  launchNonce!: string | null;

  /** That launch's block, once known to the executor (the record's `launch.blockNumber` before `intent.launches` has it). */
  @Column('bigint', { name: 'launch_block', nullable: true })
  launchBlock!: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;

  /** An exit (a sell, `POST /v1/exit`): the buy paths never take it (docs/design/exits.md). */
  @Column('boolean', { name: 'is_exit', default: false })
  isExit!: boolean;

  /** Token units to sell; null: the whole balance when it fires. */
  @Column('numeric', { name: 'exit_amount', precision: 78, scale: 0, nullable: true })
  exitAmount!: string | null;

  @Column('numeric', { name: 'take_profit', nullable: true })
  takeProfit!: string | null;

  @Column('numeric', { name: 'stop_loss', nullable: true })
  stopLoss!: string | null;

  @Column('numeric', { name: 'trailing_stop', nullable: true })
  trailingStop!: string | null;

  @Column('boolean', { name: 'on_rug', nullable: true })
  onRug!: boolean | null;

  /** Wei per whole token: given, or measured from the followed buy's receipt. */
  @Column('numeric', { name: 'entry_price', precision: 78, scale: 0, nullable: true })
  entryPrice!: string | null;

  @Column('uuid', { name: 'follows_intent_id', nullable: true })
  followsIntentId!: string | null;

  @Column('numeric', { name: 'highest_price', precision: 78, scale: 0, nullable: true })
  highestPrice!: string | null;

  @Column('text', { name: 'fired_trigger', nullable: true })
  firedTrigger!: string | null;

  @Column('numeric', { name: 'fired_price', precision: 78, scale: 0, nullable: true })
  firedPrice!: string | null;

  /** A buy's `exit` object: the exit created when it completes. */
  @Column('jsonb', { name: 'exit_spec', nullable: true })
  exitSpec!: Record<string, unknown> | null;
}

/** Service-wide settings kept in the database (e.g. the notification signing secret). */
@Entity({ name: 'settings', schema: 'intent' })
export class SettingEntity {
  @PrimaryColumn('text')
  key!: string;

  @Column('text')
  value!: string;
}

/** A tenant's webhook signing secret version (its number of rotations); no row: version 0. Never the secret. */
@Entity({ name: 'signing_secrets', schema: 'intent' })
export class SigningSecretEntity {
  @PrimaryColumn('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @Column('integer')
  version!: number;

  @Column('timestamptz', { name: 'rotated_at', default: () => 'now()' })
  rotatedAt!: Date;
}

/** One Idempotency-Key of one tenant, kept for IDEMPOTENCY_TTL_HOURS. */
@Entity({ name: 'idempotency_keys', schema: 'intent' })
export class IdempotencyKeyEntity {
  @PrimaryColumn('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @PrimaryColumn('text')
  key!: string;

  @Column('text', { name: 'request_hash' })
  requestHash!: string;

  @Column('uuid', { name: 'intent_id' })
  intentId!: string;

  /** A batch create's intents, in request order; null for a single create. */
  @Column('uuid', { name: 'intent_ids', array: true, nullable: true })
  intentIds!: string[] | null;

  @Index('idempotency_keys_created_at_idx')
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;
}
