import type { MevCaptureEvent, PayoutViewer } from '@tradeinfra/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ADVISORY_LOCKS } from '@tradeinfra/service-kit';

/** The advisory lock class of a payout's claim of its entries (see claimEntries). */
const CLAIM_LOCK_CLASS = ADVISORY_LOCKS.payoutClaim;

export interface EntryFilters {
  status?: string;
  chainId?: number;
  sourceId?: string;
  type?: string;
  from?: string;
  to?: string;
}

/** `e` visible to the viewer: operators see everything, a tenant its registered sources' entries. */
const VISIBLE = `($1::boolean OR e.source_id IN (SELECT s.id FROM payout.sources s WHERE s.tenant_id = $2::uuid))`;

/**
 * The only writer of `payout.entries` and `payout.sources`, and their reads. Replies are JSON the
 * database renders. A payout's changes of its entries (claim, paid, released) run inside the
 * payout's transaction, which PayoutsRepository hands in (`tx`).
 */
@Injectable()
export class LedgerRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * Inserts one entry per event, in one statement; an event id already in the ledger (a
   * redelivery, a republish) inserts nothing. Returns how many entries were created.
   */
  async insertEntries(rows: { id: string; event: MevCaptureEvent }[]): Promise<number> {
    if (rows.length === 0) return 0;
    const col = <T>(pick: (r: { id: string; event: MevCaptureEvent }) => T) => rows.map(pick);
    const inserted: unknown[] = await this.db.query(
      // created_at is the instant in the id (UUIDv7): listing newest-first by id is then also
      // newest-first by createdAt, whichever replica inserted first.
      `INSERT INTO payout.entries (id, event_id, chain_id, reference, source_id, generated_by_source_id, asset, amount, type, status, occurred_at, created_at)
       SELECT id, event_id, chain_id, reference, source_id, generated_by, asset, amount, type, 'PENDING', occurred_at,
              to_timestamp(('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0)
       FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::text[], $10::timestamptz[])
         AS t(id, event_id, chain_id, reference, source_id, generated_by, asset, amount, type, occurred_at)
       ON CONFLICT (event_id) DO NOTHING
       RETURNING 1`,
      [
        col((r) => r.id),
        col((r) => r.event.id),
        col((r) => r.event.chainId),
        col((r) => r.event.txHash),
        col((r) => r.event.sourceId),
        col((r) => r.event.generatedBySourceId),
        col((r) => r.event.asset),
        col((r) => r.event.amount),
        col((r) => r.event.type),
        col((r) => r.event.time),
      ],
    );
    return inserted.length;
  }

  /** The entry an event made, as JSON, or null. */
  async entryOfEvent(eventId: string): Promise<string | null> {
    const rows: { json: string }[] = await this.db.query(`SELECT payout.entry_json(e)::text AS json FROM payout.entries e WHERE e.event_id = $1`, [eventId]);
    return rows[0]?.json ?? null;
  }

  async entriesByTx(viewer: PayoutViewer, hash: string): Promise<string> {
    const rows: { json: string }[] = await this.db.query(
      `SELECT coalesce(json_agg(payout.entry_json(e) ORDER BY e.id), '[]')::text AS json
       FROM payout.entries e WHERE e.reference = $3 AND ${VISIBLE}`,
      [viewer.admin, viewer.tenantId, hash],
    );
    return rows[0]!.json;
  }

  /** A page of entries, newest first, plus the id after which more follow (keyset). */
  async listEntries(viewer: PayoutViewer, f: EntryFilters, beforeId: string | null, limit: number): Promise<{ json: string; moreAfter: string | null }> {
    const rows: { json: string; more_after: string | null }[] = await this.db.query(
      `WITH hits AS (
         SELECT e.id, row_number() OVER (ORDER BY e.id DESC) AS n, payout.entry_json(e) AS entry
         FROM payout.entries e
         WHERE ${VISIBLE}
           AND ($3::text IS NULL OR e.status = $3)
           AND ($4::int IS NULL OR e.chain_id = $4)
           AND ($5::text IS NULL OR e.source_id = $5)
           AND ($6::text IS NULL OR e.type = $6)
           AND ($7::timestamptz IS NULL OR e.created_at >= $7)
           AND ($8::timestamptz IS NULL OR e.created_at < $8)
           AND ($9::uuid IS NULL OR e.id < $9)
         ORDER BY e.id DESC
         LIMIT $10 + 1
       )
       SELECT coalesce((SELECT json_agg(entry ORDER BY n) FROM hits WHERE n <= $10), '[]')::text AS json,
              (SELECT id FROM hits WHERE n = $10 AND EXISTS (SELECT 1 FROM hits WHERE n = $10 + 1)) AS more_after`,
      [viewer.admin, viewer.tenantId, f.status ?? null, f.chainId ?? null, f.sourceId ?? null, f.type ?? null, f.from ?? null, f.to ?? null, beforeId, limit],
    );
    return { json: rows[0]!.json, moreAfter: rows[0]!.more_after };
  }

  /**
   * Claims every unclaimed PENDING entry of (source, chain, asset) for payout `payoutId` in `tx`,
   * claims of one (source, chain, asset) taking turns under an advisory lock, so concurrent
   * requests never split a balance (docs/design/code-notes.md#claiming-entries). Returns how many
   * were claimed and their sum (`amount` as summed, `total` without trailing zeros; null when none).
   */
  async claimEntries(
    tx: EntityManager,
    c: { payoutId: string; sourceId: string; chainId: number; asset: string },
  ): Promise<{ n: number; amount: string | null; total: string | null }> {
    await tx.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [CLAIM_LOCK_CLASS, `${c.sourceId}:${c.chainId}:${c.asset}`]);
    const [row] = (await tx.query(
      `WITH claimed AS (
         UPDATE payout.entries SET claimed_by = $1
         WHERE id IN (
           SELECT id FROM payout.entries
           WHERE source_id = $2 AND chain_id = $3 AND asset = $4 AND status = 'PENDING' AND claimed_by IS NULL
           FOR UPDATE SKIP LOCKED
         )
         RETURNING amount
       )
       SELECT count(*)::int AS n, sum(amount)::text AS amount, trim_scale(sum(amount))::text AS total FROM claimed`,
      [c.payoutId, c.sourceId, c.chainId, c.asset],
    )) as { n: number; amount: string | null; total: string | null }[];
    return row!;
  }

  /** The entries the payout claimed become PAID, with its id, in the payout's transaction `tx`. */
  async markEntriesPaid(tx: EntityManager, payoutId: string): Promise<void> {
    await tx.query(`UPDATE payout.entries SET status = 'PAID', payout_id = $1 WHERE claimed_by = $1 AND status = 'PENDING'`, [payoutId]);
  }

  /** The entries the payout claimed are released (claimable again), in the payout's transaction `tx`. */
  async releaseEntries(tx: EntityManager, payoutId: string): Promise<void> {
    await tx.query(`UPDATE payout.entries SET claimed_by = NULL WHERE claimed_by = $1 AND status = 'PENDING'`, [payoutId]);
  }

  /** The (chain, asset) groups of a source with unclaimed PENDING entries. */
  async claimableGroups(sourceId: string): Promise<{ chainId: number; asset: string }[]> {
    const rows: { chain_id: number; asset: string }[] = await this.db.query(
      `SELECT DISTINCT chain_id, asset FROM payout.entries WHERE source_id = $1 AND status = 'PENDING' AND claimed_by IS NULL ORDER BY chain_id, asset`,
      [sourceId],
    );
    return rows.map((r) => ({ chainId: r.chain_id, asset: r.asset }));
  }

  /** The source's tenant: undefined when the source is unknown, null when it is not registered. */
  async sourceTenant(sourceId: string): Promise<string | null | undefined> {
    const rows: { tenant_id: string | null }[] = await this.db.query(`SELECT tenant_id FROM payout.sources WHERE id = $1`, [sourceId]);
    if (rows[0]) return rows[0].tenant_id;
    const seen: unknown[] = await this.db.query(`SELECT 1 FROM payout.entries WHERE source_id = $1 LIMIT 1`, [sourceId]);
    return seen.length > 0 ? null : undefined;
  }

  /** Registers the source to the tenant; false when it already belongs to another tenant. */
  async registerSource(sourceId: string, tenantId: string): Promise<boolean> {
    const rows: { tenant_id: string }[] = await this.db.query(
      `INSERT INTO payout.sources (id, tenant_id) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET tenant_id = EXCLUDED.tenant_id WHERE payout.sources.tenant_id IS NULL OR payout.sources.tenant_id = EXCLUDED.tenant_id
       RETURNING tenant_id`,
      [sourceId, tenantId],
    );
    return rows.length > 0;
  }

  /**
   * Balances per (chain, asset): pending (incl. claimed by payouts in progress), claimable, paid,
   * and `amount` (Merkle's name: the claimable balance). Also the claimable balances as decimal
   * text, for pricing.
   */
  async cashback(sourceId: string): Promise<{ json: string; claimable: { chainId: number; asset: string; amount: string }[] }> {
    const rows: { json: string; claimable: { chainId: number; asset: string; amount: string }[] }[] = await this.db.query(
      `WITH b AS (
         SELECT chain_id, asset,
                trim_scale(coalesce(sum(amount) FILTER (WHERE status = 'PENDING'), 0)) AS pending,
                trim_scale(coalesce(sum(amount) FILTER (WHERE status = 'PENDING' AND claimed_by IS NULL), 0)) AS claimable,
                trim_scale(coalesce(sum(amount) FILTER (WHERE status = 'PAID'), 0)) AS paid
         FROM payout.entries WHERE source_id = $1 GROUP BY chain_id, asset
       )
       SELECT json_build_object(
         'sourceId', $1::text,
         'entryCount', (SELECT count(*) FROM payout.entries WHERE source_id = $1),
         'latestEntryAt', (SELECT to_char(max(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM payout.entries WHERE source_id = $1),
         'balances', coalesce((
           SELECT json_agg(json_build_object('chainId', chain_id, 'asset', asset, 'amount', claimable, 'pending', pending, 'claimable', claimable, 'paid', paid) ORDER BY chain_id, asset)
           FROM b), '[]')
       )::text AS json,
       coalesce((SELECT json_agg(json_build_object('chainId', chain_id, 'asset', asset, 'amount', claimable::text)) FROM b), '[]') AS claimable`,
      [sourceId],
    );
    return rows[0]!;
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}
