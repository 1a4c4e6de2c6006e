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

  /** The transaction of the pair's first Mint; null for a pair found already liquid. */
  @Column('text', { name: 'tx_hash', nullable: true })
  txHash!: string | null;

  /** The launch transaction was seen pending before its block (a public launch). */
  @Column('boolean', { name: 'seen_pending', default: false })
  seenPending!: boolean;
}

/** A launch seen in the mempool (see PendingLaunchWatcher): gone once its block is recorded or it is dropped. */
@Entity({ name: 'pending_launches', schema: 'intent' })
export class PendingLaunchEntity {
  @PrimaryColumn('integer', { name: 'chain_id' })
  chainId!: number;

  @PrimaryColumn('text')
  token!: string;

  @Column('text')
  pair!: string;

  @Column('text', { name: 'tx_hash' })
  txHash!: string;

  /** The launch transaction's signed bytes, checked against its hash. */
  @Column('text')
  raw!: string;

  @Column('text')
  sender!: string;

  @Column('bigint')
  nonce!: string;

  @Column('numeric', { name: 'token_reserve', precision: 78, scale: 0 })
  tokenReserve!: string;

  @Column('numeric', { name: 'native_reserve', precision: 78, scale: 0 })
  nativeReserve!: string;

  /** The state the launch leaves, as simulation overrides. */
  @Column('jsonb', { name: 'state_after' })
  stateAfter!: unknown;

  @Column('bigint', { name: 'head_block' })
  headBlock!: string;

  @Column('timestamptz', { name: 'seen_at', default: () => 'now()' })
  seenAt!: Date;
}
