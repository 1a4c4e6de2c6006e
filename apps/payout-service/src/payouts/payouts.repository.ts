import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export type ClaimOutcome = { json: string; total: string } | { none: true } | { belowMinimum: string };

/** An operator's claim on a source that is not its own tenant's: recorded in `payout.admin_audit`. */
export interface ClaimAudit {
  id: string;
  keyId: string | null;
  tenantId: string;
  sourceTenantId: string | null;
}

/** The only class that touches the payout table (and the entries' claim columns). */
@Injectable()
export class PayoutsRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * Claims every unclaimed PENDING entry of (source, chain, asset) into a new payout, in one
   * transaction. Rows another request is claiming are skipped, so no entry is claimed twice.
   * Nothing to claim, or a total below `minimum`, rolls everything back. With `audit`, the
   * audit row is written in the same transaction as the payout (one never exists without the other).
   */
  async claim(p: { id: string; sourceId: string; address: string; chainId: number; asset: string; minimum: string; audit: ClaimAudit | null }): Promise<ClaimOutcome> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const rows: { json: string | null; n: string; total: string | null }[] = await runner.query(
        `WITH claimed AS (
           UPDATE payout.entries SET claimed_by = $1
           WHERE id IN (
             SELECT id FROM payout.entries
             WHERE source_id = $2 AND chain_id = $4 AND asset = $5 AND status = 'PENDING' AND claimed_by IS NULL
             FOR UPDATE SKIP LOCKED
           )
           RETURNING amount
         ),
         total AS (SELECT count(*) AS n, sum(amount) AS amount FROM claimed),
         payout AS (
           INSERT INTO payout.payouts AS x (id, source_id, address, chain_id, asset, amount, status)
           SELECT $1, $2, $3, $4, $5, total.amount, 'PENDING' FROM total WHERE total.n > 0 AND total.amount >= $6::numeric
           RETURNING payout.payout_json(x)::text AS json
         )
         SELECT (SELECT json FROM payout) AS json, total.n, trim_scale(total.amount)::text AS total FROM total`,
        [p.id, p.sourceId, p.address, p.chainId, p.asset, p.minimum],
      );
      const row = rows[0]!;
      if (row.json) {
        if (p.audit) {
          await runner.query(
            `INSERT INTO payout.admin_audit (id, key_id, tenant_id, action, source_id, source_tenant_id, payout_id, address, chain_id, asset, amount)
             VALUES ($1, $2, $3, 'payout.request', $4, $5, $6, $7, $8, $9, $10)`,
            [p.audit.id, p.audit.keyId, p.audit.tenantId, p.sourceId, p.audit.sourceTenantId, p.id, p.address, p.chainId, p.asset, row.total],
          );
        }
        await runner.commitTransaction();
        return { json: row.json, total: row.total! };
      }
      await runner.rollbackTransaction();
      return Number(row.n) === 0 ? { none: true } : { belowMinimum: row.total! };
    } catch (err) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  async find(id: string): Promise<{ json: string; sourceId: string; status: string } | null> {
    const rows: { json: string; source_id: string; status: string }[] = await this.db.query(
      `SELECT payout.payout_json(x)::text AS json, x.source_id, x.status FROM payout.payouts x WHERE x.id = $1`,
      [id],
    );
    return rows[0] ? { json: rows[0].json, sourceId: rows[0].source_id, status: rows[0].status } : null;
  }

  /** PENDING → TX_PENDING with the payout's transaction hash. */
  async markSent(id: string, txHash: string): Promise<string | null> {
    const rows: { json: string }[] = await this.db.query(
      // Wrapped in a CTE: TypeORM returns [rows, count] for a bare UPDATE.
      `WITH p AS (
         UPDATE payout.payouts AS x SET status = 'TX_PENDING', tx_hash = $2, updated_at = now()
         WHERE x.id = $1 AND x.status = 'PENDING' RETURNING payout.payout_json(x)::text AS json
       )
       SELECT json FROM p`,
      [id, txHash],
    );
    return rows[0]?.json ?? null;
  }

  /** TX_PENDING → PAID; its entries become PAID with payoutId set, in the same statement. */
  async markPaid(id: string): Promise<string | null> {
    const rows: { json: string }[] = await this.db.query(
      `WITH p AS (
         UPDATE payout.payouts AS x SET status = 'PAID', updated_at = now()
         WHERE x.id = $1 AND x.status = 'TX_PENDING' RETURNING payout.payout_json(x)::text AS json
       ),
       e AS (
         UPDATE payout.entries SET status = 'PAID', payout_id = $1
         WHERE claimed_by = $1 AND status = 'PENDING' AND EXISTS (SELECT 1 FROM p) RETURNING 1
       )
       SELECT json, (SELECT count(*) FROM e) AS paid FROM p`,
      [id],
    );
    return rows[0]?.json ?? null;
  }

  /** TX_PENDING → TX_FAILED (its transaction failed); its entries are released (claimable again). */
  async markFailed(id: string): Promise<string | null> {
    const rows: { json: string }[] = await this.db.query(
      `WITH p AS (
         UPDATE payout.payouts AS x SET status = 'TX_FAILED', updated_at = now()
         WHERE x.id = $1 AND x.status = 'TX_PENDING' RETURNING payout.payout_json(x)::text AS json
       ),
       e AS (
         UPDATE payout.entries SET claimed_by = NULL
         WHERE claimed_by = $1 AND status = 'PENDING' AND EXISTS (SELECT 1 FROM p) RETURNING 1
       )
       SELECT json, (SELECT count(*) FROM e) AS released FROM p`,
      [id],
    );
    return rows[0]?.json ?? null;
  }
}
