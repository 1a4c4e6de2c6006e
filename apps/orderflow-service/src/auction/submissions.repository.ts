import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Bid } from './bundles.repository.js';

/** What was decided for a target in one block: the winning bid (null: the target alone), and whether it went out. */
export interface Decision {
  bundleId: string | null;
  sentAt: Date | null;
}

/** The only writer of `orderflow.submissions`: one auction decision per (target, block). */
@Injectable()
export class SubmissionsRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * Records the round's decision for (target, block) unless one is recorded already, and answers
   * the recorded one: two replicas deciding at once submit the same.
   */
  async decide(chainId: number, target: string, block: bigint, winner: Bid | null): Promise<Decision> {
    await this.db.query(
      `INSERT INTO orderflow.submissions (chain_id, target_hash, block_number, bundle_id, bid) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (chain_id, target_hash, block_number) DO NOTHING`,
      [chainId, target, block.toString(), winner?.id ?? null, winner?.bid.toString() ?? null],
    );
    return (await this.decision(chainId, target, block))!;
  }

  async decision(chainId: number, target: string, block: bigint): Promise<Decision | null> {
    const rows: { bundle_id: string | null; sent_at: Date | null }[] = await this.db.query(
      `SELECT bundle_id, sent_at FROM orderflow.submissions WHERE chain_id = $1 AND target_hash = $2 AND block_number = $3`,
      [chainId, target, block.toString()],
    );
    return rows[0] ? { bundleId: rows[0].bundle_id, sentAt: rows[0].sent_at } : null;
  }

  async markSent(chainId: number, target: string, block: bigint): Promise<void> {
    await this.db.query(`UPDATE orderflow.submissions SET sent_at = now() WHERE chain_id = $1 AND target_hash = $2 AND block_number = $3 AND sent_at IS NULL`, [
      chainId,
      target,
      block.toString(),
    ]);
  }
}
