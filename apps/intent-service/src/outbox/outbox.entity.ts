import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Transactional outbox: written in the same statement as the intent change it reports,
 * relayed to JetStream by {@link OutboxRelay}. `intent` is the IntentRecord as of the change.
 */
@Entity({ name: 'outbox', schema: 'intent' })
@Index('outbox_unpublished_idx', ['seq'], { where: 'published_at IS NULL' })
export class OutboxEventEntity {
  /** UUIDv7 from `intent.uuid_v7()`; also the JetStream Nats-Msg-Id. */
  @PrimaryColumn('uuid')
  id!: string;

  @Column('bigint', { generated: 'increment' })
  seq!: string;

  @Column('text')
  type!: string;

  @Column('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @Column('json')
  intent!: unknown;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'published_at', nullable: true })
  publishedAt!: Date | null;
}
