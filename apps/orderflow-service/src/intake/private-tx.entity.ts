import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A private transaction a wallet sent: the auction's target. `status`: `pending` (not mined,
 * within `max_block`), `included` (mined in `block_number`), `expired` (past `max_block`),
 * `public` (expired, then sent to the public mempool as its sender allowed). Never leaves the service.
 */
@Entity({ name: 'private_txs', schema: 'orderflow' })
@Index('private_txs_open_idx', ['chainId'], { where: "status IN ('pending', 'included')" })
@Index('private_txs_hash_idx', ['hash'])
@Index('private_txs_sender_nonce_key', ['chainId', 'sender', 'nonce'], { unique: true, where: "status = 'pending'" })
@Check('private_txs_status_check', "status IN ('pending', 'included', 'expired', 'public')")
export class PrivateTxEntity {
  @PrimaryColumn('integer', { name: 'chain_id', primaryKeyConstraintName: 'PK_private_txs' })
  chainId!: number;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_private_txs' })
  hash!: string;

  @Column('text', { name: 'source_id' })
  sourceId!: string;

  @Column('uuid', { name: 'tenant_id' })
  tenantId!: string;

  @Column('text')
  sender!: string;

  @Column('bigint')
  nonce!: string;

  @Column('text')
  raw!: string;

  /** The hints the sender allowed, comma-separated. */
  @Column('text')
  hints!: string;

  /** The block its first auction round targets. */
  @Column('bigint', { name: 'first_block' })
  firstBlock!: string;

  @Column('bigint', { name: 'max_block' })
  maxBlock!: string;

  @Column('boolean', { name: 'use_mempool', default: false })
  useMempool!: boolean;

  /** The hint event as the stream sends it. */
  @Column('text', { name: 'hint_json' })
  hintJson!: string;

  @Column('timestamptz', { name: 'hint_published_at', nullable: true })
  hintPublishedAt!: Date | null;

  @Column('text', { default: 'pending' })
  status!: string;

  @Column('bigint', { name: 'block_number', nullable: true })
  blockNumber!: string | null;

  @Column('text', { name: 'block_hash', nullable: true })
  blockHash!: string | null;

  @Column('timestamptz', { name: 'received_at', default: () => 'now()' })
  receivedAt!: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
