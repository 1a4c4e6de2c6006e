import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PendingLaunch } from './pending-launch-detector.js';

/** A pending launch as stored, for following it until its block. */
export interface StoredPendingLaunch {
  token: string;
  txHash: string;
  sender: string;
  nonce: bigint;
}

/** The only writer of `intent.pending_launches`: launches seen in the mempool, until their block is recorded or they are dropped. */
@Injectable()
export class PendingLaunchesRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Tokens (lowercase) whose intents wait for a launch not seen yet, in a block or pending. */
  async watchedTokens(chainId: number): Promise<string[]> {
    const rows: { token: string }[] = await this.db.query(
      `SELECT DISTINCT lower(x.token_address) AS token FROM intent.intents x
       WHERE x.chain_id = $1 AND x.status = 'pending' AND x.phase IS DISTINCT FROM 'submitted' AND NOT x.is_exit
         AND NOT EXISTS (SELECT 1 FROM intent.launches l WHERE l.chain_id = x.chain_id AND l.token = lower(x.token_address))
         AND NOT EXISTS (SELECT 1 FROM intent.pending_launches p WHERE p.chain_id = x.chain_id AND p.token = lower(x.token_address))`,
      [chainId],
    );
    return rows.map((r) => r.token);
  }

  /** Stores the launch of each of its tokens quoted in `quote`; true for those newly stored. */
  async record(launch: PendingLaunch, quote: string, seenAt: Date): Promise<string[]> {
    const mine = launch.launches.filter((l) => l.quote === quote);
    if (mine.length === 0) return [];
    const rows: { token: string }[] = await this.db.query(
      `INSERT INTO intent.pending_launches (chain_id, token, pair, tx_hash, raw, sender, nonce, token_reserve, native_reserve, state_after, head_block, seen_at)
       SELECT $1, t.token, t.pair, $2, $3, $4, $5, t.token_reserve, t.native_reserve, $6::jsonb, $7, $12
       FROM unnest($8::text[], $9::text[], $10::numeric[], $11::numeric[]) AS t(token, pair, token_reserve, native_reserve)
       ON CONFLICT (chain_id, token) DO NOTHING
       RETURNING token`,
      [
        launch.chainId,
        launch.txHash.toLowerCase(),
        launch.raw,
        launch.transaction.from.toLowerCase(),
        BigInt(launch.transaction.nonce).toString(),
        JSON.stringify(launch.stateAfter),
        launch.headBlock.toString(),
        mine.map((l) => l.token),
        mine.map((l) => l.pair),
        mine.map((l) => l.tokenReserve.toString()),
        mine.map((l) => l.quoteReserve.toString()),
        seenAt,
      ],
    );
    return rows.map((r) => r.token);
  }

  /** The chain's pending launches whose block is not recorded yet (those whose block is are removed). */
  async open(chainId: number): Promise<StoredPendingLaunch[]> {
    await this.db.query(
      `DELETE FROM intent.pending_launches p WHERE p.chain_id = $1
         AND EXISTS (SELECT 1 FROM intent.launches l WHERE l.chain_id = p.chain_id AND l.token = p.token)`,
      [chainId],
    );
    const rows: { token: string; tx_hash: string; sender: string; nonce: string }[] = await this.db.query(
      `SELECT token, tx_hash, sender, nonce FROM intent.pending_launches WHERE chain_id = $1`,
      [chainId],
    );
    return rows.map((r) => ({ token: r.token, txHash: r.tx_hash, sender: r.sender, nonce: BigInt(r.nonce) }));
  }

  /** The newest block the block watcher has processed on the chain (null: none yet). */
  async blockCursor(chainId: number): Promise<bigint | null> {
    const [row] = (await this.db.query(`SELECT max(number)::text AS n FROM intent.chain_blocks WHERE chain_id = $1`, [chainId])) as { n: string | null }[];
    return row?.n ? BigInt(row.n) : null;
  }

  /** Forgets a launch that will not happen (dropped or replaced), or whose block the block watcher has processed. */
  async remove(chainId: number, txHash: string): Promise<number> {
    // (A bare DELETE … RETURNING answers [rows, count] through TypeORM: count the rows in SQL.)
    const [{ n }] = (await this.db.query(
      `WITH d AS (DELETE FROM intent.pending_launches WHERE chain_id = $1 AND tx_hash = $2 RETURNING 1) SELECT count(*)::int AS n FROM d`,
      [chainId, txHash.toLowerCase()],
    )) as { n: number }[];
    return n;
  }
}
