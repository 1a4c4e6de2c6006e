import { Inject, Injectable } from '@nestjs/common';
import { ADVISORY_LOCKS } from '@tradeinfra/service-kit';
import { DataSource, type EntityManager } from 'typeorm';
import { type Launch } from './launch-detector.js';

/** Stored block hashes per chain checked on every new block (4 times as many are kept: how deep a reorg the watcher can follow). */
export const KEPT_BLOCKS = 64;
/** The advisory lock class that lets one replica watch a chain at a time. */
const LOCK_CLASS = ADVISORY_LOCKS.launchWatcher;

export interface StoredBlock {
  number: string;
  hash: string;
}

/** The checkpoint heights up to `number`: 0 and every power of two. */
export function checkpointsUpTo(number: bigint): bigint[] {
  const heights = number >= 0n ? [0n] : [];
  for (let p = 1n; p <= number; p *= 2n) heights.push(p);
  return heights;
}

/** The launch tables inside one watcher step's transaction (holding the chain's lock). */
export class ChainLaunches {
  constructor(
    private readonly tx: EntityManager,
    readonly chainId: number,
  ) {}

  /** The newest remembered blocks, newest first. */
  recentBlocks(): Promise<StoredBlock[]> {
    return this.tx.query('SELECT number, hash FROM intent.chain_blocks WHERE chain_id = $1 ORDER BY number DESC LIMIT $2', [this.chainId, KEPT_BLOCKS]);
  }

  /** Every remembered block at or below `number` (the genesis block too, once anchored), newest first. */
  blocksUpTo(number: bigint): Promise<StoredBlock[]> {
    return this.tx.query('SELECT number, hash FROM intent.chain_blocks WHERE chain_id = $1 AND number <= $2 ORDER BY number DESC', [
      this.chainId,
      number.toString(),
    ]);
  }

  /**
   * Of the checkpoints up to `number` (the genesis block and every power of two: kept for good,
   * what tells a reset chain from a node behind at any height), those not remembered.
   */
  async missingCheckpoints(number: bigint): Promise<bigint[]> {
    const wanted = checkpointsUpTo(number);
    const rows: { number: string }[] = await this.tx.query('SELECT number::text FROM intent.chain_blocks WHERE chain_id = $1 AND number = ANY($2::bigint[])', [
      this.chainId,
      wanted.map(String),
    ]);
    const have = new Set(rows.map((r) => r.number));
    return wanted.filter((n) => !have.has(n.toString()));
  }

  /** Remembers a block's hash, dropping nothing (a checkpoint). */
  async keep(number: bigint, hash: string): Promise<void> {
    await this.tx.query(
      'INSERT INTO intent.chain_blocks (chain_id, number, hash) VALUES ($1, $2, $3) ON CONFLICT (chain_id, number) DO UPDATE SET hash = EXCLUDED.hash',
      [this.chainId, number.toString(), hash],
    );
  }

  /**
   * Tokens (lowercase) whose launch is not recorded yet: those of pending intents, and those
   * whose launch was seen pending (its buys may be settled before its block is processed; the
   * intents' records still show that block).
   */
  async awaitedTokens(): Promise<Set<string>> {
    const rows: { token: string }[] = await this.tx.query(
      `SELECT t.token FROM (
         SELECT lower(i.token_address) AS token FROM intent.intents i WHERE i.chain_id = $1 AND i.status = 'pending' AND NOT i.is_exit
         UNION
         SELECT p.token FROM intent.pending_launches p WHERE p.chain_id = $1
       ) t
       WHERE NOT EXISTS (SELECT 1 FROM intent.launches l WHERE l.chain_id = $1 AND l.token = t.token)`,
      [this.chainId],
    );
    return new Set(rows.map((t) => t.token));
  }

  /**
   * Records a launch (the first one recorded for the token stays), noting whether its
   * transaction was seen pending before (`intent.pending_launches`): then it was public.
   */
  async record(launch: Launch, seenAt: Date): Promise<void> {
    await this.tx.query(
      `INSERT INTO intent.launches (chain_id, token, pair, block_number, block_hash, seen_at, tx_hash, seen_pending)
       VALUES ($1, $2, $3, $4, $5, $6, $7,
         $7::text IS NOT NULL AND EXISTS (SELECT 1 FROM intent.pending_launches p WHERE p.chain_id = $1 AND p.token = $2 AND p.tx_hash = $7))
       ON CONFLICT (chain_id, token) DO NOTHING`,
      [this.chainId, launch.token, launch.pair, launch.blockNumber.toString(), launch.blockHash, seenAt, launch.txHash],
    );
  }

  /** Forgets the blocks after `back` and the launches seen in them (`-1`: every block and launch); the undone launches' tokens. */
  async forgetAfter(back: bigint): Promise<string[]> {
    await this.tx.query('DELETE FROM intent.chain_blocks WHERE chain_id = $1 AND number > $2', [this.chainId, back.toString()]);
    // Selected from the DELETE (a bare DELETE … RETURNING answers [rows, count] through TypeORM).
    const undone: { token: string }[] = await this.tx.query(
      'WITH d AS (DELETE FROM intent.launches WHERE chain_id = $1 AND block_number > $2 RETURNING token) SELECT token FROM d ORDER BY token',
      [this.chainId, back.toString()],
    );
    return undone.map((u) => u.token);
  }

  /** Remembers a block's hash (the cursor) and drops hashes far below it (not the checkpoints). */
  async remember(number: bigint, hash: string): Promise<void> {
    await this.keep(number, hash);
    await this.tx.query('DELETE FROM intent.chain_blocks WHERE chain_id = $1 AND number < $2 AND number > 0 AND number & (number - 1) <> 0', [
      this.chainId,
      (number - BigInt(KEPT_BLOCKS * 4)).toString(),
    ]);
  }
}

/**
 * The only writer of the launch tables (`intent.launches`, `intent.chain_blocks`): the watcher's
 * block cursor, recent block hashes and recorded launches, changed together in one transaction.
 */
@Injectable()
export class LaunchesRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** `work` in one transaction holding the chain's watcher lock; `idle` when another replica holds it. */
  withChain<T>(chainId: number, idle: T, work: (launches: ChainLaunches) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      const [{ locked }] = await tx.query('SELECT pg_try_advisory_xact_lock($1, $2) AS locked', [LOCK_CLASS, chainId]);
      if (!locked) return idle;
      return work(new ChainLaunches(tx, chainId));
    });
  }
}
