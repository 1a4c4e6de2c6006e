import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Blocks the launch watcher has processed (the newest is its cursor), kept to detect reorgs. */
@Entity({ name: 'chain_blocks', schema: 'intent' })
export class ChainBlockEntity {
  @PrimaryColumn('integer', { name: 'chain_id' })
  chainId!: number;

  @PrimaryColumn('bigint')
  number!: string;

  @Column('text')
  hash!: string;
}

/** The first liquidity of a token's pair with the wrapped native token, as seen on chain. */
@Entity({ name: 'launches', schema: 'intent' })
export class LaunchEntity {
  @PrimaryColumn('integer', { name: 'chain_id' })
  chainId!: number;

  @PrimaryColumn('text')
  token!: string;

  @Column('text')
  pair!: string;

  @Column('bigint', { name: 'block_number' })
  blockNumber!: string;

  @Column('text', { name: 'block_hash' })
  blockHash!: string;

  @Column('timestamptz', { name: 'detected_at', default: () => 'now()' })
  detectedAt!: Date;

  /** When the watcher first had the launch block from the node (what execution latency counts from). */
  @Column('timestamptz', { name: 'seen_at', nullable: true })
  seenAt!: Date | null;
}
