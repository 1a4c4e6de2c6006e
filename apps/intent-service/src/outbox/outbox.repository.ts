import { Inject, Injectable } from '@nestjs/common';
import { ADVISORY_LOCKS } from '@tradeinfra/service-kit';
import { DataSource } from 'typeorm';

export interface PendingEvent {
  id: string;
  type: string;
  tenantId: string;
  intent: unknown;
  createdAt: Date;
}

/** The advisory lock that makes one relay replica publish at a time, in order. */
const RELAY_LOCK_KEY = ADVISORY_LOCKS.outboxRelay;

@Injectable()
export class OutboxRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

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
