import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { LedgerRepository } from '../ledger/ledger.repository.js';

export type ClaimOutcome = { json: string; total: string } | { none: true } | { belowMinimum: string };

/** An operator's claim on a source that is not its own tenant's: recorded in `payout.admin_audit`. */
export interface ClaimAudit {
  id: string;
  keyId: string | null;
  tenantId: string;
  sourceTenantId: string | null;
}

/** A payout the service sends itself, waiting for its transaction to be signed. */
export interface UnsentPayout {
  id: string;
  address: string;
  asset: string;
  /** Decimal, in the asset's units (e.g. "0.001"). */
  amount: string;
}

/** A payout whose signed transaction waits for the chain. */
export interface SentPayout {
  id: string;
  txHash: string;
  signedTx: string;
  nonce: bigint;
  sender: string;
  sentAt: Date;
  cancelTx: string | null;
}

/**
 * The only writer of `payout.payouts`, `payout.admin_audit` and `payout.settlement_nonces`. A
 * payout's changes of its entries (claim, paid, released) are LedgerRepository's (the entries'
 * writer), run in the payout's transaction, so the payout and its entries change together or
 * not at all.
 */
@Injectable()
export class PayoutsRepository {
  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    private readonly ledger: LedgerRepository,
  ) {}

  /**
   * Claims every unclaimed PENDING entry of (source, chain, asset) into a new payout, in one
   * transaction. Claims of one balance take turns (LedgerRepository.claimEntries): of concurrent
   * requests, the first takes every entry and the others find none; no entry is claimed twice.
   * Nothing to claim, or a total below `minimum`, rolls everything back. With `audit`, the
   * audit row is written in the same transaction as the payout (one never exists without the other).
   */
  async claim(p: {
    id: string;
    sourceId: string;
    address: string;
    chainId: number;
    asset: string;
    minimum: string;
    email?: string | null;
    audit: ClaimAudit | null;
  }): Promise<ClaimOutcome> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const claimed = await this.ledger.claimEntries(runner.manager, { payoutId: p.id, sourceId: p.sourceId, chainId: p.chainId, asset: p.asset });
      const rows: { json: string }[] =
        claimed.n > 0
          ? await runner.query(
              `INSERT INTO payout.payouts AS x (id, source_id, address, chain_id, asset, amount, status, email)
               SELECT $1, $2, $3, $4, $5, $6::numeric, 'PENDING', $8 WHERE $6::numeric >= $7::numeric
               RETURNING payout.payout_json(x)::text AS json`,
              [p.id, p.sourceId, p.address, p.chainId, p.asset, claimed.amount, p.minimum, p.email ?? null],
            )
          : [];
      if (rows[0]) {
        if (p.audit) {
          await runner.query(
            `INSERT INTO payout.admin_audit (id, key_id, tenant_id, action, source_id, source_tenant_id, payout_id, address, chain_id, asset, amount)
             VALUES ($1, $2, $3, 'payout.request', $4, $5, $6, $7, $8, $9, $10)`,
            [p.audit.id, p.audit.keyId, p.audit.tenantId, p.sourceId, p.audit.sourceTenantId, p.id, p.address, p.chainId, p.asset, claimed.total],
          );
        }
        await runner.commitTransaction();
        return { json: rows[0].json, total: claimed.total! };
      }
      await runner.rollbackTransaction();
      return claimed.n === 0 ? { none: true } : { belowMinimum: claimed.total! };
    } catch (err) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  /** The source's latest payouts, newest first, as one JSON array. */
  async listBySource(sourceId: string, limit: number): Promise<string> {
    const rows: { json: string }[] = await this.db.query(
      `SELECT coalesce(json_agg(payout.payout_json(x) ORDER BY x.id DESC), '[]')::text AS json
       FROM (SELECT * FROM payout.payouts WHERE source_id = $1 ORDER BY id DESC LIMIT $2) x`,
      [sourceId, limit],
    );
    return rows[0]!.json;
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

  /** TX_PENDING → PAID; its entries become PAID with payoutId set, in the same transaction. */
  async markPaid(id: string): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      const json = await this.finish(tx, id, 'PAID');
      if (json !== null) await this.ledger.markEntriesPaid(tx, id);
      return json;
    });
  }

  /** TX_PENDING → TX_FAILED (its transaction failed); its entries are released (claimable again) in the same transaction. */
  async markFailed(id: string): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      const json = await this.finish(tx, id, 'TX_FAILED');
      if (json !== null) await this.ledger.releaseEntries(tx, id);
      return json;
    });
  }

  /** TX_PENDING → `status` (the row stays locked until `tx` ends); the payout's JSON, or null when it was not TX_PENDING. */
  private async finish(tx: EntityManager, id: string, status: 'PAID' | 'TX_FAILED'): Promise<string | null> {
    const rows: { json: string }[] = await tx.query(
      `WITH p AS (
         UPDATE payout.payouts AS x SET status = $2, updated_at = now()
         WHERE x.id = $1 AND x.status = 'TX_PENDING' RETURNING payout.payout_json(x)::text AS json
       )
       SELECT json FROM p`,
      [id, status],
    );
    return rows[0]?.json ?? null;
  }

  // ---- automatic settlement ----

  /** PENDING payouts of `assets` on the chain with no transaction yet, oldest first. */
  async unsent(chainId: number, assets: string[], limit: number): Promise<UnsentPayout[]> {
    const rows: { id: string; address: string; asset: string; amount: string }[] = await this.db.query(
      `SELECT id, address, asset, trim_scale(amount)::text AS amount FROM payout.payouts
       WHERE chain_id = $1 AND status = 'PENDING' AND asset = ANY($2::text[])
       ORDER BY created_at, id LIMIT $3`,
      [chainId, assets, limit],
    );
    return rows;
  }

  /**
   * Gives a PENDING payout its one transaction, in one database transaction: the treasury's next
   * nonce (at least `nonceFloor`), signed by `sign`, stored with the payout now TX_PENDING; sending
   * comes after the commit. Null when the payout is no longer PENDING or another replica holds it.
   */
  async prepare(
    p: { id: string; chainId: number; sender: string; nonceFloor: bigint },
    sign: (nonce: bigint) => Promise<{ raw: string; hash: string }>,
  ): Promise<{ raw: string; hash: string; nonce: bigint } | null> {
    return this.db.transaction(async (tx) => {
      const held: unknown[] = await tx.query(`SELECT 1 FROM payout.payouts WHERE id = $1 AND status = 'PENDING' AND signed_tx IS NULL FOR UPDATE SKIP LOCKED`, [
        p.id,
      ]);
      if (held.length === 0) return null;
      await tx.query(`INSERT INTO payout.settlement_nonces (chain_id, address, next_nonce) VALUES ($1, $2, $3) ON CONFLICT (chain_id, address) DO NOTHING`, [
        p.chainId,
        p.sender,
        p.nonceFloor.toString(),
      ]);
      const [{ next_nonce }] = await tx.query(`SELECT next_nonce::text FROM payout.settlement_nonces WHERE chain_id = $1 AND address = $2 FOR UPDATE`, [
        p.chainId,
        p.sender,
      ]);
      const stored = BigInt(next_nonce as string);
      const nonce = stored > p.nonceFloor ? stored : p.nonceFloor;
      const signed = await sign(nonce);
      await tx.query(
        `UPDATE payout.payouts SET status = 'TX_PENDING', tx_hash = $2, signed_tx = $3, tx_nonce = $4, sender = $5, sent_at = now(), updated_at = now()
         WHERE id = $1`,
        [p.id, signed.hash, signed.raw, nonce.toString(), p.sender],
      );
      await tx.query(`UPDATE payout.settlement_nonces SET next_nonce = $3 WHERE chain_id = $1 AND address = $2`, [
        p.chainId,
        p.sender,
        (nonce + 1n).toString(),
      ]);
      return { ...signed, nonce };
    });
  }

  /** The chain's TX_PENDING payouts that this service signed, in nonce order. */
  async sent(chainId: number): Promise<SentPayout[]> {
    const rows: { id: string; tx_hash: string; signed_tx: string; tx_nonce: string; sender: string; sent_at: Date; cancel_tx: string | null }[] =
      await this.db.query(
        `SELECT id, tx_hash, signed_tx, tx_nonce::text, sender, sent_at, cancel_tx FROM payout.payouts
       WHERE chain_id = $1 AND status = 'TX_PENDING' AND signed_tx IS NOT NULL ORDER BY sender, tx_nonce`,
        [chainId],
      );
    return rows.map((r) => ({
      id: r.id,
      txHash: r.tx_hash,
      signedTx: r.signed_tx,
      nonce: BigInt(r.tx_nonce),
      sender: r.sender,
      sentAt: r.sent_at,
      cancelTx: r.cancel_tx,
    }));
  }

  /** Stores the replacement of a stuck payout transaction, unless one is stored already; returns the stored one. */
  async setCancel(id: string, raw: string): Promise<string> {
    const rows: { cancel_tx: string }[] = await this.db.query(
      `WITH u AS (UPDATE payout.payouts SET cancel_tx = $2 WHERE id = $1 AND cancel_tx IS NULL RETURNING cancel_tx)
       SELECT cancel_tx FROM u UNION ALL SELECT cancel_tx FROM payout.payouts WHERE id = $1 AND cancel_tx IS NOT NULL LIMIT 1`,
      [id, raw],
    );
    return rows[0]!.cancel_tx;
  }
}
