import type { CreateIntentRequest, IntentRecord, IntentStatus } from '@tradeinfra/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface IdempotencyClaim {
  key: string;
  requestHash: string;
}

export interface StoredIdempotencyKey {
  requestHash: string;
  intentId: string;
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
  wallets: string[];
  statuses: IntentStatus[];
  /** Keyset: only intents with a smaller (older) id. */
  beforeId: string | null;
  limit: number;
}

const INSERT_COLUMNS = `id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at,
  max_buy_tax, max_sell_tax, min_in, min_out, min_liquidity, fee_bps, fee_recipient, first_or_fail,
  max_slippage_bps, gas_tip, notification_webhook_url, webhook_url, created_at, updated_at`;
/** created_at is the instant in the id (UUIDv7), so newest-first by id is newest-first by createdAt. */
const CREATED_AT = `to_timestamp(('x' || substr(replace($1::uuid::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0)`;
const INSERT_VALUES = `$1, $2, 'pending', $3, $4, $5, $6, $7, to_timestamp($8), $9, $10, $11, $12, $13, $14, $15,
  $16, $17, $18, $19, $20, ${CREATED_AT}, ${CREATED_AT}`;

/**
 * The only class that talks to the intent tables. Every status change is one statement that
 * also writes its outbox event, so a change and its event commit together or not at all.
 */
@Injectable()
export class IntentsRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * Inserts the intent and its `created` event; with an idempotency claim, only when the key is
   * new for the tenant (a concurrent insert of the same key waits for the first to commit).
   * Returns null when the key was already taken.
   */
  async create(
    tenantId: string,
    id: string,
    intent: CreateIntentRequest,
    claim: IdempotencyClaim | null,
  ): Promise<IntentRecord | null> {
    const params: unknown[] = [
      id,
      tenantId,
      intent.chainId,
      intent.wallet,
      intent.tokenAddress,
      intent.bribe,
      intent.buyAmount,
      intent.expiry,
      numericOrNull(intent.maxBuyTax),
      numericOrNull(intent.maxSellTax),
      intent.minIn,
      intent.minOut,
      intent.minLiquidity,
      intent.feeBps,
      intent.feeRecipient,
      intent.firstOrFail,
      intent.maxSlippageBps,
      intent.gasTip,
      intent.notificationWebhookUrl,
      intent.webhookUrl,
    ];
    const guard = claim
      ? `k AS (
           INSERT INTO intent.idempotency_keys (tenant_id, key, request_hash, intent_id)
           VALUES ($2, $21, $22, $1) ON CONFLICT (tenant_id, key) DO NOTHING RETURNING 1
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
       e AS (INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), 'created', tenant_id, record FROM i)
       SELECT record FROM i`,
      params,
    );
    return rows[0]?.record ?? null;
  }

  async findIdempotencyKey(tenantId: string, key: string): Promise<StoredIdempotencyKey | null> {
    const rows: { request_hash: string; intent_id: string; created_at: Date }[] = await this.db.query(
      `SELECT request_hash, intent_id, created_at FROM intent.idempotency_keys WHERE tenant_id = $1 AND key = $2`,
      [tenantId, key],
    );
    const row = rows[0];
    return row ? { requestHash: row.request_hash, intentId: row.intent_id, createdAt: row.created_at } : null;
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
    const [, count] = await this.db.query(
      `DELETE FROM intent.idempotency_keys WHERE created_at < now() - make_interval(hours => $1)`,
      [ttlHours],
    );
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
       e AS (INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), 'cancelled', tenant_id, record FROM c)
       SELECT record FROM c`,
      [id, tenantId],
    );
    return rows[0]?.record ?? null;
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
       e AS (INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), 'expired', tenant_id, record FROM x RETURNING 1)
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
       e AS (INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), 'error', tenant_id, record FROM x RETURNING 1)
       SELECT count(*) AS n FROM e`,
      [graceMinutes, batch],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}

/** Taxes are exact decimals in the database; JS numbers print their shortest exact form. */
function numericOrNull(value: number | null): string | null {
  return value === null ? null : String(value);
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
