import type { MigrationInterface, QueryRunner } from 'typeorm';
import { INTENT_RECORD_FIELDS, recordJsonFunction } from '../../intents/intent-record.sql.js';

/**
 * `intents.webhook_batch` (the record's `webhookBatch`): the intent's signing webhook takes
 * batches (one SigningBatchRequest for the buys of one launch that name it). Null or false: one
 * SigningRequest per buy, as before.
 */
export class WebhookBatch1764900000000 implements MigrationInterface {
  name = 'WebhookBatch1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" ADD "webhook_batch" boolean`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The record as LaunchKind left it: every field but this one.
    const { webhookBatch: _added, ...before } = INTENT_RECORD_FIELDS;
    await q.query(recordJsonFunction(before));
    await q.query(`ALTER TABLE "intent"."intents" DROP COLUMN "webhook_batch"`);
  }
}
