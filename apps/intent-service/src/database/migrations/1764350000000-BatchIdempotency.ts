import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An Idempotency-Key of a batch create (`POST /v1/intents`) names every intent the batch
 * created, in request order (`intent_id` keeps the first). Null for a single create.
 */
export class BatchIdempotency1764350000000 implements MigrationInterface {
  name = 'BatchIdempotency1764350000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."idempotency_keys" ADD "intent_ids" uuid array`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."idempotency_keys" DROP COLUMN "intent_ids"`);
  }
}
