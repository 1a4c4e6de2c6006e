import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Who deployed a token, as read from its chain (the record's `token`, Merkle's fields). A row
 * exists once the token was looked up; its facts stay null while they are not known.
 */
@Entity({ name: 'tokens', schema: 'intent' })
export class TokenEntity {
  @PrimaryColumn('integer', { name: 'chain_id' })
  chainId!: number;

  /** Lowercase address. */
  @PrimaryColumn('text')
  token!: string;

  /** The sender of the transaction that created the token (EIP-55). */
  @Column('text', { nullable: true })
  deployer!: string | null;

  @Column('text', { name: 'deployer_tx_hash', nullable: true })
  deployerTxHash!: string | null;

  @Column('bigint', { name: 'deployer_block_number', nullable: true })
  deployerBlockNumber!: string | null;

  /** Unix seconds of that block. */
  @Column('bigint', { name: 'deployer_timestamp', nullable: true })
  deployerTimestamp!: string | null;

  /** Lookups made so far (a token not deployed yet, or one created by a contract, is looked up again less and less often). */
  @Column('integer', { default: 0 })
  attempts!: number;

  /** When it was last looked up; the next lookup waits longer after each attempt. */
  @Column('timestamptz', { name: 'looked_up_at', default: () => 'now()' })
  lookedUpAt!: Date;

  /** true once the facts are final (found, or the token's creation is known to be out of reach). */
  @Column('boolean', { default: false })
  settled!: boolean;
}
