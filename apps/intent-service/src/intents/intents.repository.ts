import type { BulkCancelResult, CreateIntentRequest, IntentRecord, IntentStatus } from '@tradeinfra/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { ExecutionTransitions } from './execution-transitions.js';
import { batchParams, CREATED_AT, createParams, INSERT_COLUMNS, INSERT_PARAM_TYPES, INSERT_VALUES, type NewIntent } from './intent-row.js';

export type { NewIntent } from './intent-row.js';

export interface IdempotencyClaim {
  key: string;
  requestHash: string;
}

/** One create of a group (IntentsRepository.createGroup). */
export interface GroupedCreate {
  tenantId: string;
  id: string;
  intent: NewIntent;
  claim: IdempotencyClaim | null;
}

export interface StoredIdempotencyKey {
  requestHash: string;
  intentId: string;
  /** A batch create's intents, in request order; null for a single create. */
  intentIds: string[] | null;
  createdAt: Date;
}

export interface SearchPage {
  /** JSON array of IntentRecord, newest first. */
  intentsJson: string;
  /** Id of the last intent of the page, when more intents follow it. */
  moreAfter: string | null;
}

export interface SearchQuery {
  tenantId: string;
  /** Empty: every wallet of the tenant. */
  wallets: string[];
  statuses: IntentStatus[];
  /** Keyset: only intents with a smaller (older) id. */
  beforeId: string | null;
  limit: number;
}

/**
 * The only writer of `intent.intents` and `intent.idempotency_keys`, and their reads: creates,
 * searches, cancels, expiries, `error`, chain-wide notes; the executor's transitions are its part
 * in execution-transitions.ts. Every status change writes its outbox event in the same statement.
 */
@Injectable()
export class IntentsRepository extends ExecutionTransitions {
  constructor(@Inject(DataSource) db: DataSource) {
    super(db);
  }

  /**
   * Inserts the intent and its `created` event; with an idempotency claim, only when the key is
   * new for the tenant (a concurrent insert of the same key waits for the first to commit).
   * Returns null when the key was already taken.
   */
  async create(tenantId: string, id: string, intent: NewIntent, claim: IdempotencyClaim | null): Promise<IntentRecord | null> {
    const params = createParams(tenantId, id, intent);
    const guard = claim
      ? `k AS (
           INSERT INTO intent.idempotency_keys (tenant_id, key, request_hash, intent_id)
           VALUES ($2, $26, $27, $1) ON CONFLICT (tenant_id, key) DO NOTHING RETURNING 1
         ),`
      : '';
    if (claim) params.push(claim.key, claim.requestHash);
    const rows: { record: IntentRecord }[] = await this.db.query(
      `WITH ${guard}
       i AS (
         INSERT INTO intent.intents AS x (${INSERT_COLUMNS})
         SELECT ${INSERT_VALUES} ${claim ? 'WHERE EXISTS (SELECT 1 FROM k)' : ''}
         RETURNING x.tenant_id, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('i', 'created')})
       SELECT record FROM i`,
      params,
    );
    return rows[0]?.record ?? null;
  }

  /**
   * Several {@link create}s in one statement (one transaction: all of them or none), each with
   * its own tenant and claim. Returns, in order, each one's record, or null where its key was
   * already taken (by an earlier transaction, or by an earlier create of the group).
   */
  async createGroup(creates: GroupedCreate[]): Promise<(IntentRecord | null)[]> {
    const columns: unknown[][] = INSERT_PARAM_TYPES.map(() => []);
    const keys: (string | null)[] = [];
    const hashes: (string | null)[] = [];
    for (const c of creates) {
      createParams(c.tenantId, c.id, c.intent).forEach((value, j) => columns[j]!.push(value));
      keys.push(c.claim?.key ?? null);
      hashes.push(c.claim?.requestHash ?? null);
    }
    const n = INSERT_PARAM_TYPES.length;
    const arrays = INSERT_PARAM_TYPES.map((type, j) => `$${j + 1}::${type}[]`).join(', ');
    const names = INSERT_PARAM_TYPES.map((_, j) => `c${j + 1}`).join(', ');
    const values = INSERT_VALUES.replace(/\$(\d+)/g, (_, j: string) => `u.c${j}`);
    const rows: { id: string; record: IntentRecord }[] = await this.db.query(
      `WITH u AS (
         SELECT * FROM unnest(${arrays}, $${n + 1}::text[], $${n + 2}::text[]) WITH ORDINALITY AS u(${names}, key, request_hash, n)
       ),
       k AS (
         INSERT INTO intent.idempotency_keys (tenant_id, key, request_hash, intent_id)
         SELECT c2, key, request_hash, c1 FROM u WHERE key IS NOT NULL ORDER BY c2, key, n
         ON CONFLICT (tenant_id, key) DO NOTHING RETURNING intent_id
       ),
       i AS (
         INSERT INTO intent.intents AS x (${INSERT_COLUMNS})
         SELECT ${values} FROM u WHERE u.key IS NULL OR u.c1 IN (SELECT intent_id FROM k) ORDER BY u.n
         RETURNING x.id, x.tenant_id, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('i', 'created', { ordered: true })})
       SELECT id, record FROM i`,
      [...columns, keys, hashes],
    );
    const byId = new Map(rows.map((r) => [r.id, r.record]));
    return creates.map((c) => byId.get(c.id) ?? null);
  }

  /**
   * Inserts a batch of intents and one `created` event per intent, exactly as {@link create}
   * does for one, in one statement (so one transaction: all of them or none). With an
   * idempotency claim, only when the key is new for the tenant; the key then names every id.
   * Returns the records in the order of `ids`, or null when the key was already taken.
   */
  async createBatch(tenantId: string, ids: string[], intents: CreateIntentRequest[], claim: IdempotencyClaim | null): Promise<IntentRecord[] | null> {
    if (ids.length !== intents.length || ids.length === 0) throw new Error('createBatch: one id per intent, at least one');
    const params = batchParams(tenantId, ids, intents);
    const guard = claim
      ? `k AS (
           INSERT INTO intent.idempotency_keys (tenant_id, key, request_hash, intent_id, intent_ids)
           VALUES ($1, $24, $25, ($2::uuid[])[1], $2::uuid[]) ON CONFLICT (tenant_id, key) DO NOTHING RETURNING 1
         ),`
      : '';
    if (claim) params.push(claim.key, claim.requestHash);
    const createdAt = CREATED_AT.replace('$1', 'u.id');
    const rows: { id: string; record: IntentRecord }[] = await this.db.query(
      `WITH ${guard}
       i AS (
         INSERT INTO intent.intents AS x (${INSERT_COLUMNS})
         SELECT u.id, $1, 'pending', u.chain_id, u.wallet, u.token_address, u.bribe, u.buy_amount, to_timestamp(u.expiry),
           u.max_buy_tax, u.max_sell_tax, u.min_in, u.min_out, u.min_liquidity, u.fee_bps, u.fee_recipient, u.first_or_fail,
           u.max_slippage_bps, u.gas_tip, u.notification_webhook_url, u.webhook_url, NULL, NULL, ${createdAt}, ${createdAt},
           u.webhook_batch, u.webhook_protocol, u.exit_spec
         FROM unnest($2::uuid[], $3::integer[], $4::text[], $5::text[], $6::numeric[], $7::numeric[], $8::bigint[],
                     $9::numeric[], $10::numeric[], $11::numeric[], $12::numeric[], $13::numeric[], $14::integer[], $15::text[],
                     $16::boolean[], $17::integer[], $18::numeric[], $19::text[], $20::text[], $21::boolean[], $22::text[], $23::jsonb[])
           AS u(id, chain_id, wallet, token_address, bribe, buy_amount, expiry, max_buy_tax, max_sell_tax, min_in, min_out,
                min_liquidity, fee_bps, fee_recipient, first_or_fail, max_slippage_bps, gas_tip, notification_webhook_url, webhook_url, webhook_batch, webhook_protocol,
                exit_spec)
         ${claim ? 'WHERE EXISTS (SELECT 1 FROM k)' : ''}
         RETURNING x.id, x.tenant_id, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('i', 'created', { ordered: true })})
       SELECT id, record FROM i`,
      params,
    );
    if (rows.length === 0) return null;
    return inOrder(ids, rows);
  }

  /** The tenant's intents named by `ids`, in that order (missing ones left out). */
  async findByIds(tenantId: string, ids: string[]): Promise<IntentRecord[]> {
    const rows: { record: IntentRecord }[] = await this.db.query(
      `SELECT intent.record_json(x) AS record
       FROM unnest($2::uuid[]) WITH ORDINALITY AS r(id, n)
       JOIN intent.intents x ON x.id = r.id AND x.tenant_id = $1
       ORDER BY r.n`,
      [tenantId, ids],
    );
    return rows.map((r) => r.record);
  }

  async findIdempotencyKey(tenantId: string, key: string): Promise<StoredIdempotencyKey | null> {
    const rows: { request_hash: string; intent_id: string; intent_ids: string[] | null; created_at: Date }[] = await this.db.query(
      `SELECT request_hash, intent_id, intent_ids, created_at FROM intent.idempotency_keys WHERE tenant_id = $1 AND key = $2`,
      [tenantId, key],
    );
    const row = rows[0];
    return row ? { requestHash: row.request_hash, intentId: row.intent_id, intentIds: row.intent_ids, createdAt: row.created_at } : null;
  }

  /** Forgets one key if it is older than the TTL; true when it was removed. */
  async releaseStaleIdempotencyKey(tenantId: string, key: string, ttlHours: number): Promise<boolean> {
    const [, count] = await this.db.query(
      `DELETE FROM intent.idempotency_keys
       WHERE tenant_id = $1 AND key = $2 AND created_at < now() - make_interval(hours => $3)`,
      [tenantId, key, ttlHours],
    );
    return count > 0;
  }

  async purgeIdempotencyKeys(ttlHours: number): Promise<number> {
    const [, count] = await this.db.query(`DELETE FROM intent.idempotency_keys WHERE created_at < now() - make_interval(hours => $1)`, [ttlHours]);
    return count;
  }

  async findById(tenantId: string, id: string): Promise<IntentRecord | null> {
    const rows: { record: IntentRecord }[] = await this.db.query(
      `SELECT intent.record_json(x) AS record FROM intent.intents x WHERE x.id = $1 AND x.tenant_id = $2`,
      [id, tenantId],
    );
    return rows[0]?.record ?? null;
  }

  async statusOf(tenantId: string, id: string): Promise<{ status: IntentStatus; submitted: boolean } | null> {
    const rows: { status: IntentStatus; submitted: boolean }[] = await this.db.query(
      `SELECT status, phase IS NOT DISTINCT FROM 'submitted' AS submitted FROM intent.intents WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId],
    );
    return rows[0] ?? null;
  }

  /**
   * One page, newest first, rendered by the database as one JSON text. One bounded index scan
   * per (wallet, status) pair, merged: the cost follows the page size, not how many intents a
   * wallet has. One row more than the page tells whether another page follows.
   */
  async search(query: SearchQuery): Promise<SearchPage> {
    if (query.wallets.length === 0) return this.searchTenant(query);
    const rows: { intents: string; more_after: string | null }[] = await this.db.query(
      `WITH hits AS (
         SELECT x.id, row_number() OVER (ORDER BY x.id DESC) AS n, intent.record_json(x) AS record
         FROM unnest($2::text[]) AS w(wallet)
         CROSS JOIN unnest($3::text[]) AS s(status)
         CROSS JOIN LATERAL (
           SELECT * FROM intent.intents i
           WHERE i.tenant_id = $1 AND i.wallet = w.wallet AND i.status = s.status
             AND ($4::uuid IS NULL OR i.id < $4::uuid)
           ORDER BY i.id DESC
           LIMIT $5 + 1
         ) x
         ORDER BY x.id DESC
         LIMIT $5 + 1
       )
       SELECT coalesce((SELECT json_agg(record ORDER BY n) FROM hits WHERE n <= $5), '[]')::text AS intents,
              (SELECT id FROM hits WHERE n = $5 AND EXISTS (SELECT 1 FROM hits WHERE n = $5 + 1)) AS more_after`,
      [query.tenantId, unique(query.wallets), unique(query.statuses), query.beforeId, query.limit],
    );
    return { intentsJson: rows[0]!.intents, moreAfter: rows[0]!.more_after };
  }

  /** The same page over every wallet of the tenant: one bounded scan of intents_tenant_status_idx per status, merged. */
  private async searchTenant(query: SearchQuery): Promise<SearchPage> {
    const rows: { intents: string; more_after: string | null }[] = await this.db.query(
      `WITH hits AS (
         SELECT x.id, row_number() OVER (ORDER BY x.id DESC) AS n, intent.record_json(x) AS record
         FROM unnest($2::text[]) AS s(status)
         CROSS JOIN LATERAL (
           SELECT * FROM intent.intents i
           WHERE i.tenant_id = $1 AND i.status = s.status AND ($3::uuid IS NULL OR i.id < $3::uuid)
           ORDER BY i.id DESC
           LIMIT $4 + 1
         ) x
         ORDER BY x.id DESC
         LIMIT $4 + 1
       )
       SELECT coalesce((SELECT json_agg(record ORDER BY n) FROM hits WHERE n <= $4), '[]')::text AS intents,
              (SELECT id FROM hits WHERE n = $4 AND EXISTS (SELECT 1 FROM hits WHERE n = $4 + 1)) AS more_after`,
      [query.tenantId, unique(query.statuses), query.beforeId, query.limit],
    );
    return { intentsJson: rows[0]!.intents, moreAfter: rows[0]!.more_after };
  }

  /**
   * pending → cancelled, only if still pending and its buy was not submitted (once submitted,
   * the chain decides the outcome); null otherwise. One row update: a concurrent execution
   * step on the same row waits for it and then sees the new status, or the other way round.
   */
  async cancel(tenantId: string, id: string): Promise<IntentRecord | null> {
    const rows: { record: IntentRecord }[] = await this.db.query(
      `WITH c AS (
         UPDATE intent.intents AS x
         SET status = 'cancelled', status_reason = 'cancelled by the client', updated_at = now()
         WHERE x.id = $1 AND x.tenant_id = $2 AND x.status = 'pending' AND x.phase IS DISTINCT FROM 'submitted'
         RETURNING x.tenant_id, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('c', 'cancelled')})
       SELECT record FROM c`,
      [id, tenantId],
    );
    return rows[0]?.record ?? null;
  }

  /**
   * Bulk cancel in one transaction: each of the tenant's cancellable `ids` becomes `cancelled` as
   * {@link cancel} does, rows locked in id order (as round settlement locks them: no deadlock).
   * One result per id, in the order of `ids` (which must not repeat).
   */
  async cancelBatch(tenantId: string, ids: string[]): Promise<BulkCancelResult[]> {
    return this.db.transaction(async (tx) => {
      const cancelled: { id: string }[] = await tx.query(
        `WITH l AS (
           SELECT x.id FROM intent.intents x
           WHERE x.id = ANY($2::uuid[]) AND x.tenant_id = $1 AND x.status = 'pending' AND x.phase IS DISTINCT FROM 'submitted'
           ORDER BY x.id
           FOR UPDATE
         ),
         c AS (
           UPDATE intent.intents AS x
           SET status = 'cancelled', status_reason = 'cancelled by the client', updated_at = now()
           FROM l
           WHERE x.id = l.id AND x.status = 'pending' AND x.phase IS DISTINCT FROM 'submitted'
           RETURNING x.id, x.tenant_id, intent.record_json(x) AS record
         ),
         e AS (${OutboxRepository.insertSql('c', 'cancelled', { ordered: true })})
         SELECT id FROM c`,
        [tenantId, ids],
      );
      const now: { id: string; status: IntentStatus; submitted: boolean }[] = await tx.query(
        `SELECT id, status, phase IS NOT DISTINCT FROM 'submitted' AS submitted
         FROM intent.intents WHERE id = ANY($2::uuid[]) AND tenant_id = $1`,
        [tenantId, ids],
      );
      const done = new Set(cancelled.map((r) => r.id));
      const byId = new Map(now.map((r) => [r.id, r]));
      return ids.map((id): BulkCancelResult => {
        const row = byId.get(id);
        if (done.has(id)) return { id, status: 'cancelled', cancelled: true, reason: null };
        if (!row) return { id, status: null, cancelled: false, reason: 'not_found' };
        const executing = row.status === 'pending' && row.submitted;
        return { id, status: row.status, cancelled: false, reason: executing ? 'executing' : 'not_pending' };
      });
    });
  }

  /**
   * Expires up to `batch` pending intents whose expiry has passed. Rows another replica is
   * expiring are skipped, and the status condition makes each transition happen once.
   */
  async expireDue(batch: number): Promise<number> {
    const rows: { n: string }[] = await this.db.query(
      `WITH due AS (
         SELECT id FROM intent.intents
         WHERE status = 'pending' AND expires_at <= now() AND phase IS DISTINCT FROM 'submitted'
         ORDER BY expires_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       ),
       x AS (
         UPDATE intent.intents AS x
         SET status = 'expired', status_reason = coalesce(x.status_reason, 'expiry reached before launch'), updated_at = now()
         FROM due WHERE x.id = due.id AND x.status = 'pending' AND x.phase IS DISTINCT FROM 'submitted'
         RETURNING x.tenant_id, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('x', 'expired', { returning: true })})
       SELECT count(*) AS n FROM e`,
      [batch],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Submitted buys nobody could follow long past their expiry (the chain's node unreachable, or
   * the chain halted): `error`, since nobody can say whether the buy landed before the expiry.
   * (After the expiry it cannot: the buy's router deadline is the expiry.)
   */
  async errorUnfollowed(graceMinutes: number, batch: number): Promise<number> {
    const rows: { n: string }[] = await this.db.query(
      `WITH due AS (
         SELECT id FROM intent.intents
         WHERE status = 'pending' AND phase = 'submitted' AND expires_at <= now() - make_interval(mins => $1)
         LIMIT $2
         FOR UPDATE SKIP LOCKED
       ),
       x AS (
         UPDATE intent.intents AS x
         SET status = 'error', status_reason = 'outcome_unknown', updated_at = now()
         FROM due WHERE x.id = due.id AND x.status = 'pending'
         RETURNING x.tenant_id, intent.record_json(x) AS record
       ),
       e AS (${OutboxRepository.insertSql('x', 'error', { returning: true })})
       SELECT count(*) AS n FROM e`,
      [graceMinutes, batch],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Sets (`on`) or clears a chain-wide note on the chain's waiting intents: set only where no
   * other reason is noted and no round holds them; cleared only where it is that note.
   */
  async noteChainReason(chainId: number, reason: string, on: boolean): Promise<void> {
    if (on) {
      await this.db.query(
        `UPDATE intent.intents SET status_reason = $2
         WHERE chain_id = $1 AND status = 'pending' AND phase IS NULL AND status_reason IS NULL`,
        [chainId, reason],
      );
    } else {
      await this.db.query(`UPDATE intent.intents SET status_reason = NULL WHERE chain_id = $1 AND status = 'pending' AND status_reason = $2`, [
        chainId,
        reason,
      ]);
    }
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}

/** `rows` (each with its `id`) in the order of `ids`. */
function inOrder(ids: string[], rows: { id: string; record: IntentRecord }[]): IntentRecord[] {
  const byId = new Map(rows.map((r) => [r.id, r.record]));
  return ids.map((id) => {
    const record = byId.get(id);
    if (!record) throw new Error(`batch insert returned no row for ${id}`);
    return record;
  });
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
