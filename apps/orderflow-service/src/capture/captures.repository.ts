import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** A winning backrun mined behind its target, waiting for its confirmations. */
export interface Capture {
  chainId: number;
  targetHash: string;
  bundleId: string;
  sourceId: string;
  blockNumber: bigint;
  blockHash: string;
  bid: bigint;
}

interface Row {
  chain_id: number;
  target_hash: string;
  bundle_id: string;
  source_id: string;
  block_number: string;
  block_hash: string;
  bid: string;
}

/** The only writer of `orderflow.captures`. */
@Injectable()
export class CapturesRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Records a capture (inside the transaction that marks its target included); a second one of the same target is ignored. */
  async observe(c: Capture, tx: EntityManager): Promise<void> {
    await tx.query(
      `INSERT INTO orderflow.captures (chain_id, target_hash, bundle_id, source_id, block_number, block_hash, bid) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (chain_id, target_hash) DO NOTHING`,
      [c.chainId, c.targetHash, c.bundleId, c.sourceId, c.blockNumber.toString(), c.blockHash, c.bid.toString()],
    );
  }

  /** Observed captures in blocks at or below `upTo`, oldest block first. */
  async confirmable(chainId: number, upTo: bigint): Promise<Capture[]> {
    const rows: Row[] = await this.db.query(
      `SELECT chain_id, target_hash, bundle_id, source_id, block_number, block_hash, bid FROM orderflow.captures
       WHERE chain_id = $1 AND status = 'observed' AND block_number <= $2 ORDER BY block_number, target_hash`,
      [chainId, upTo.toString()],
    );
    return rows.map((r) => ({
      chainId: r.chain_id,
      targetHash: r.target_hash,
      bundleId: r.bundle_id,
      sourceId: r.source_id,
      blockNumber: BigInt(r.block_number),
      blockHash: r.block_hash,
      bid: BigInt(r.bid),
    }));
  }

  /** Its block was reorged away: forgotten, in the transaction that puts its target back to pending. */
  async forget(chainId: number, targetHash: string, tx: EntityManager): Promise<void> {
    await tx.query(`DELETE FROM orderflow.captures WHERE chain_id = $1 AND target_hash = $2 AND status = 'observed'`, [chainId, targetHash]);
  }

  /**
   * observed → credited (with `alsoInTx`, its event's outbox row, in the same transaction) or
   * nothing when `credited` is 0; true when this call made the change. A capture credited already
   * is never credited again.
   */
  async credit(chainId: number, targetHash: string, paid: bigint, credited: bigint, alsoInTx: ((tx: EntityManager) => Promise<void>) | null): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows: unknown[] = await tx.query(
        `UPDATE orderflow.captures SET status = $3, paid = $4, credited = $5, credited_at = now()
         WHERE chain_id = $1 AND target_hash = $2 AND status = 'observed' RETURNING 1`,
        [chainId, targetHash, alsoInTx ? 'credited' : 'nothing', paid.toString(), credited.toString()],
      );
      if (rows.length === 0) return false;
      await alsoInTx?.(tx);
      return true;
    });
  }
}
