import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A searcher's bid: a bundle behind one private transaction that simulated well (`bid`: wei it
 * pays the beneficiary). `dropped`: why a later re-simulation took it out of the auction.
 */
@Entity({ name: 'bundles', schema: 'orderflow' })
@Index('bundles_target_idx', ['chainId', 'targetHash'])
@Check('bundles_bid_check', 'bid > 0')
export class BundleEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_bundles' })
  id!: string;

  @Column('integer', { name: 'chain_id' })
  chainId!: number;

  @Column('text', { name: 'target_hash' })
  targetHash!: string;

  @Column('text')
  searcher!: string;

  @Column('text', { name: 'bundle_hash' })
  bundleHash!: string;

  /** JSON: `[{raw, hash, canRevert}]`, the transactions behind the target, in order. */
  @Column('text')
  txs!: string;

  @Column('bigint', { name: 'block_min' })
  blockMin!: string;

  @Column('bigint', { name: 'block_max' })
  blockMax!: string;

  @Column('numeric')
  bid!: string;

  /** The block whose state `bid` was simulated on. */
  @Column('bigint', { name: 'sim_block' })
  simBlock!: string;

  @Column('text', { nullable: true })
  dropped!: string | null;

  @Column('timestamptz', { name: 'received_at', default: () => 'now()' })
  receivedAt!: Date;
}

/** One auction round's decision: what goes to the relays for a target in one block (`bundle_id` null: the target alone). */
@Entity({ name: 'submissions', schema: 'orderflow' })
export class SubmissionEntity {
  @PrimaryColumn('integer', { name: 'chain_id', primaryKeyConstraintName: 'PK_submissions' })
  chainId!: number;

  @PrimaryColumn('text', { name: 'target_hash', primaryKeyConstraintName: 'PK_submissions' })
  targetHash!: string;

  @PrimaryColumn('bigint', { name: 'block_number', primaryKeyConstraintName: 'PK_submissions' })
  blockNumber!: string;

  @Column('uuid', { name: 'bundle_id', nullable: true })
  bundleId!: string | null;

  @Column('numeric', { nullable: true })
  bid!: string | null;

  @Column('timestamptz', { name: 'decided_at', default: () => 'now()' })
  decidedAt!: Date;

  @Column('timestamptz', { name: 'sent_at', nullable: true })
  sentAt!: Date | null;
}
