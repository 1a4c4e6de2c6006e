import { Inject, Injectable } from '@nestjs/common';
import { INTENT_EVENT_TYPES, type IntentEventType } from '@tradeinfra/contracts';
import { ADVISORY_LOCKS } from '@tradeinfra/service-kit';
import { DataSource } from 'typeorm';

export interface OutboxInsertOptions {
  /** Events in the order of the rows' ids (a batch's events come out in id order). */
  ordered?: boolean;
  /** `RETURNING 1`: the statement counts the events written. */
  returning?: boolean;
}

export interface PendingEvent {
  id: string;
  type: string;
  tenantId: string;
  intent: unknown;
  createdAt: Date;
}

/** The advisory lock that makes one relay replica publish at a time, in order. */
const RELAY_LOCK_KEY = ADVISORY_LOCKS.outboxRelay;

/**
 * The only writer of `intent.outbox`. An intent change writes its events with {@link insertSql}
 * inside its own statement (so the change and its events commit together or not at all); the
 * relay (OutboxRelay) then publishes them in order and marks them published, and the sweeper
 * purges the published ones.
 */
@Injectable()
export class OutboxRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * The one way an intent change writes its outbox events: the `INSERT INTO intent.outbox` of a
   * CTE, one event per row of `rows` (a CTE returning `tenant_id` and `record`, the rendered
   * IntentRecord, and `id` when `ordered`), to put in the same statement as the change. `type`
   * is an event type, or the name of a column of `rows` holding it (e.g. the new `status`).
   */
  static insertSql(rows: string, type: IntentEventType | { column: string }, options: OutboxInsertOptions = {}): string {
    if (!/^[a-z_][a-z0-9_]*$/.test(rows)) throw new Error(`OutboxRepository.insertSql: ${rows} is not a CTE name`);
    let typeSql: string;
    if (typeof type === 'string') {
      if (!INTENT_EVENT_TYPES.includes(type)) throw new Error(`OutboxRepository.insertSql: unknown event type ${type as string}`);
      typeSql = `'${type}'`;
    } else {
      if (!/^[a-z_][a-z0-9_]*$/.test(type.column)) throw new Error(`OutboxRepository.insertSql: ${type.column} is not a column name`);
      typeSql = type.column;
    }
    const from = options.ordered ? `(SELECT * FROM ${rows} ORDER BY id) o` : rows;
    return `INSERT INTO intent.outbox (id, type, tenant_id, intent) SELECT intent.uuid_v7(), ${typeSql}, tenant_id, record FROM ${from}${options.returning ? ' RETURNING 1' : ''}`;
  }

  /**
   * Hands up to `limit` unpublished events, oldest first, to `publish`, and marks the ids it
   * returns as published, in one transaction under the relay lock. Returns how many events were
   * handed over, or null when another replica holds the lock.
   */
  async relayBatch(limit: number, publish: (events: PendingEvent[]) => Promise<string[]>): Promise<number | null> {
    return this.db.transaction(async (tx) => {
      const [{ locked }] = await tx.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [RELAY_LOCK_KEY]);
      if (!locked) return null;
      const rows: { id: string; type: string; tenant_id: string; intent: unknown; created_at: Date }[] = await tx.query(
        `SELECT id, type, tenant_id, intent, created_at FROM intent.outbox
         WHERE published_at IS NULL ORDER BY seq LIMIT $1`,
        [limit],
      );
      if (rows.length === 0) return 0;
      const published = await publish(rows.map((r) => ({ id: r.id, type: r.type, tenantId: r.tenant_id, intent: r.intent, createdAt: r.created_at })));
      if (published.length > 0) {
        await tx.query('UPDATE intent.outbox SET published_at = now() WHERE id = ANY($1::uuid[])', [published]);
      }
      return rows.length;
    });
  }

  async purgePublished(retentionHours: number): Promise<number> {
    const [, count] = await this.db.query(`DELETE FROM intent.outbox WHERE published_at < now() - make_interval(hours => $1)`, [retentionHours]);
    return count;
  }

  async countUnpublished(): Promise<number> {
    const [{ n }] = await this.db.query('SELECT count(*)::int AS n FROM intent.outbox WHERE published_at IS NULL');
    return n;
  }
}
