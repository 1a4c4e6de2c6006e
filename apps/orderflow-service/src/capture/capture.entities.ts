import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A winning backrun mined behind its target (one per target: the dedupe of the credit). `observed`
 * until its block has its confirmations, then `credited` (an outbox event written in the same
 * transaction) or `nothing` (the source's share rounds to 0). A block reorged away deletes it.
 */
@Entity({ name: 'captures', schema: 'orderflow' })
@Index('captures_observed_idx', ['chainId', 'blockNumber'], { where: "status = 'observed'" })
@Check('captures_status_check', "status IN ('observed', 'credited', 'nothing')")
export class CaptureEntity {
  @PrimaryColumn('integer', { name: 'chain_id', primaryKeyConstraintName: 'PK_captures' })
  chainId!: number;

  @PrimaryColumn('text', { name: 'target_hash', primaryKeyConstraintName: 'PK_captures' })
  targetHash!: string;

  @Column('uuid', { name: 'bundle_id' })
  bundleId!: string;

  @Column('text', { name: 'source_id' })
  sourceId!: string;

  @Column('bigint', { name: 'block_number' })
  blockNumber!: string;

  @Column('text', { name: 'block_hash' })
  blockHash!: string;

  @Column('numeric')
  bid!: string;

  /** Wei the beneficiary was measured to receive from the backrun. */
  @Column('numeric', { nullable: true })
  paid!: string | null;

  /** Wei credited to the source (its share of `paid`). */
  @Column('numeric', { nullable: true })
  credited!: string | null;

  @Column('text', { default: 'observed' })
  status!: string;

  @Column('timestamptz', { name: 'observed_at', default: () => 'now()' })
  observedAt!: Date;

  @Column('timestamptz', { name: 'credited_at', nullable: true })
  creditedAt!: Date | null;
}

/** `mev.captured` events to publish (written with the capture's credit), relayed to JetStream with their id as Nats-Msg-Id. */
@Entity({ name: 'outbox', schema: 'orderflow' })
@Index('outbox_unpublished_idx', ['createdAt'], { where: 'published_at IS NULL' })
export class OutboxEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_outbox' })
  id!: string;

  @Column('text')
  subject!: string;

  @Column('text')
  payload!: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'published_at', nullable: true })
  publishedAt!: Date | null;
}
