import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An order-flow source and the tenant it belongs to (null: not registered yet, admin-only). */
@Entity({ name: 'sources', schema: 'payout' })
export class SourceEntity {
  @PrimaryColumn('text')
  id!: string;

  @Index('sources_tenant_idx')
  @Column('uuid', { name: 'tenant_id', nullable: true })
  tenantId!: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;
}

/**
 * One ledger entry, from one MEV-capture event (`event_id` unique: the dedupe key).
 * `claimed_by` is the payout in progress that holds it; `payout_id` is set once that payout is
 * PAID, together with `status = 'PAID'` (a CHECK keeps the two in step).
 */
@Entity({ name: 'entries', schema: 'payout' })
@Index('entries_reference_idx', ['reference'])
@Index('entries_source_idx', ['sourceId', 'id'])
@Index('entries_claimable_idx', ['sourceId', 'chainId', 'asset'], { where: "status = 'PENDING' AND claimed_by IS NULL" })
@Index('entries_claimed_by_idx', ['claimedBy'], { where: 'claimed_by IS NOT NULL' })
@Check('entries_status_check', "(status = 'PENDING' AND payout_id IS NULL) OR (status = 'PAID' AND payout_id IS NOT NULL)")
@Check('entries_amount_check', 'amount > 0')
export class EntryEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Index('entries_event_id_key', { unique: true })
  @Column('uuid', { name: 'event_id' })
  eventId!: string;

  @Column('integer', { name: 'chain_id' })
  chainId!: number;

  @Column('text')
  reference!: string;

  @Column('text', { name: 'source_id', nullable: true })
  sourceId!: string | null;

  @Column('text', { name: 'generated_by_source_id', nullable: true })
  generatedBySourceId!: string | null;

  @Column('text')
  asset!: string;

  @Column('numeric')
  amount!: string;

  @Column('text')
  type!: string;

  @Column('text')
  status!: string;

  @Column('uuid', { name: 'payout_id', nullable: true })
  payoutId!: string | null;

  @Column('uuid', { name: 'claimed_by', nullable: true })
  claimedBy!: string | null;

  @Column('timestamptz', { name: 'occurred_at' })
  occurredAt!: Date;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;
}

/**
 * What an operator (`admin` key) did to a source of another tenant (or of none): who, what,
 * when, and where the money goes. Written in the same transaction as the action.
 */
@Entity({ name: 'admin_audit', schema: 'payout' })
@Index('admin_audit_source_idx', ['sourceId', 'at'])
export class AdminAuditEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('timestamptz', { default: () => 'now()' })
  at!: Date;

  /** The API key that acted, and its tenant. */
  @Column('uuid', { name: 'key_id', nullable: true })
  keyId!: string | null;

  @Column('uuid', { name: 'tenant_id' })
  tenantId!: string;

  /** e.g. `payout.request`. */
  @Column('text')
  action!: string;

  @Column('text', { name: 'source_id' })
  sourceId!: string;

  /** The source's tenant (null: the source is not registered). */
  @Column('uuid', { name: 'source_tenant_id', nullable: true })
  sourceTenantId!: string | null;

  @Column('uuid', { name: 'payout_id', nullable: true })
  payoutId!: string | null;

  @Column('text', { nullable: true })
  address!: string | null;

  @Column('integer', { name: 'chain_id', nullable: true })
  chainId!: number | null;

  @Column('text', { nullable: true })
  asset!: string | null;

  @Column('numeric', { nullable: true })
  amount!: string | null;
}

/** A payout request: the entries it claimed and where it stands. */
@Entity({ name: 'payouts', schema: 'payout' })
@Check('payouts_status_check', "status IN ('PENDING', 'TX_PENDING', 'PAID', 'TX_FAILED')")
@Index('payouts_settling_idx', ['chainId'], { where: "status = 'TX_PENDING' AND signed_tx IS NOT NULL" })
export class PayoutEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Index('payouts_source_idx')
  @Column('text', { name: 'source_id' })
  sourceId!: string;

  @Column('text')
  address!: string;

  @Column('integer', { name: 'chain_id' })
  chainId!: number;

  @Column('text')
  asset!: string;

  @Column('numeric')
  amount!: string;

  @Column('text')
  status!: string;

  @Column('text', { name: 'tx_hash', nullable: true })
  txHash!: string | null;

  /** Automatic settlement: the treasury that signed `signed_tx`, its nonce, and when it was first sent. */
  @Column('text', { nullable: true })
  sender!: string | null;

  @Column('bigint', { name: 'tx_nonce', nullable: true })
  txNonce!: string | null;

  @Column('text', { name: 'signed_tx', nullable: true })
  signedTx!: string | null;

  @Column('timestamptz', { name: 'sent_at', nullable: true })
  sentAt!: Date | null;

  /** The replacement (zero-value self-transfer, same nonce) of a transaction unmined past its deadline. */
  @Column('text', { name: 'cancel_tx', nullable: true })
  cancelTx!: string | null;

  /** A contact the requester gave (Merkle's `email`); operators only, never in the record. */
  @Column('text', { nullable: true })
  email!: string | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}

/** The next nonce of each treasury (automatic settlement), handed out under the row's lock. */
@Entity({ name: 'settlement_nonces', schema: 'payout' })
export class SettlementNonceEntity {
  @PrimaryColumn('integer', { name: 'chain_id', primaryKeyConstraintName: 'PK_settlement_nonces' })
  chainId!: number;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_settlement_nonces' })
  address!: string;

  @Column('bigint', { name: 'next_nonce' })
  nextNonce!: string;
}
