import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** A `mev.captured` event to publish. */
export interface OutboxEvent {
  id: string;
  subject: string;
  payload: string;
}

/** The only writer of `orderflow.outbox`: events written with the change they report, published by the chain's leader. */
@Injectable()
export class OutboxRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Inside the transaction of the change it reports; the same event id twice is one row. */
  async insert(event: OutboxEvent, tx: EntityManager): Promise<void> {
    await tx.query(`INSERT INTO orderflow.outbox (id, subject, payload) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`, [
      event.id,
      event.subject,
      event.payload,
    ]);
  }

  async unpublished(limit: number): Promise<OutboxEvent[]> {
    return this.db.query(`SELECT id, subject, payload FROM orderflow.outbox WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1`, [limit]);
  }

  async published(id: string): Promise<void> {
    await this.db.query(`UPDATE orderflow.outbox SET published_at = now() WHERE id = $1`, [id]);
  }
}
