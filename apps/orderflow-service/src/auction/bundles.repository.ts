import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A transaction of a bundle, behind its target. */
export interface BundleTx {
  raw: string;
  hash: string;
  canRevert: boolean;
}

/** A bid as the auction reads it. */
export interface Bid {
  id: string;
  chainId: number;
  targetHash: string;
  searcher: string;
  bundleHash: string;
  txs: BundleTx[];
  blockMin: bigint;
  blockMax: bigint;
  bid: bigint;
  simBlock: bigint;
  receivedAt: Date;
}

interface Row {
  id: string;
  chain_id: number;
  target_hash: string;
  searcher: string;
  bundle_hash: string;
  txs: string;
  block_min: string;
  block_max: string;
  bid: string;
  sim_block: string;
  received_at: Date;
}

const toBid = (r: Row): Bid => ({
  id: r.id,
  chainId: r.chain_id,
  targetHash: r.target_hash,
  searcher: r.searcher,
  bundleHash: r.bundle_hash,
  txs: JSON.parse(r.txs) as BundleTx[],
  blockMin: BigInt(r.block_min),
  blockMax: BigInt(r.block_max),
  bid: BigInt(r.bid),
  simBlock: BigInt(r.sim_block),
  receivedAt: r.received_at,
});

/** The only writer of `orderflow.bundles` (bids). */
@Injectable()
export class BundlesRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async insert(b: Omit<Bid, 'receivedAt'>): Promise<void> {
    await this.db.query(
      `INSERT INTO orderflow.bundles (id, chain_id, target_hash, searcher, bundle_hash, txs, block_min, block_max, bid, sim_block)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        b.id,
        b.chainId,
        b.targetHash,
        b.searcher,
        b.bundleHash,
        JSON.stringify(b.txs),
        b.blockMin.toString(),
        b.blockMax.toString(),
        b.bid.toString(),
        b.simBlock.toString(),
      ],
    );
  }

  /** The live bids on `target` that may land in `block`, best first: highest bid, then earliest received (ties), then id. */
  async candidates(chainId: number, target: string, block: bigint, limit: number): Promise<Bid[]> {
    const rows: Row[] = await this.db.query(
      `SELECT * FROM orderflow.bundles
       WHERE chain_id = $1 AND target_hash = $2 AND dropped IS NULL AND block_min <= $3 AND block_max >= $3
       ORDER BY bid DESC, received_at, id LIMIT $4`,
      [chainId, target, block.toString(), limit],
    );
    return rows.map(toBid);
  }

  async get(id: string): Promise<Bid | null> {
    const rows: Row[] = await this.db.query(`SELECT * FROM orderflow.bundles WHERE id = $1`, [id]);
    return rows[0] ? toBid(rows[0]) : null;
  }

  /** A bid re-simulated on a newer block: its new amount, or why it is out of the auction. */
  async resimulated(id: string, outcome: { bid: bigint; block: bigint } | { dropped: string }): Promise<void> {
    if ('dropped' in outcome) await this.db.query(`UPDATE orderflow.bundles SET dropped = $2 WHERE id = $1`, [id, outcome.dropped.slice(0, 500)]);
    else await this.db.query(`UPDATE orderflow.bundles SET bid = $2, sim_block = $3 WHERE id = $1`, [id, outcome.bid.toString(), outcome.block.toString()]);
  }

  /** Every winner submitted for `target` (newest block first). */
  async winners(chainId: number, target: string): Promise<Bid[]> {
    const rows: Row[] = await this.db.query(
      `SELECT b.* FROM orderflow.submissions s JOIN orderflow.bundles b ON b.id = s.bundle_id
       WHERE s.chain_id = $1 AND s.target_hash = $2 ORDER BY s.block_number DESC`,
      [chainId, target],
    );
    return rows.map(toBid);
  }
}
