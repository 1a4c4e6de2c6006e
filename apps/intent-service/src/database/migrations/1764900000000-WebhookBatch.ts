import type { MigrationInterface, QueryRunner } from 'typeorm';
import { LAUNCH_BEFORE_FACTS } from './1765100000000-LaunchFacts.js';
import { RECORD_FIELDS_BEFORE_EXITS, recordJsonFunction } from '../../intents/intent-record.sql.js';

/** The intent record's fields before this migration, in order. */
const RECORD_FIELDS_BEFORE = [
  'id',
  'status',
  'chainId',
  'wallet',
  'tokenAddress',
  'bribe',
  'buyAmount',
  'expiry',
  'maxBuyTax',
  'maxSellTax',
  'minIn',
  'minOut',
  'minLiquidity',
  'feeBps',
  'feeRecipient',
  'firstOrFail',
  'maxSlippageBps',
  'gasTip',
  'createdAt',
  'updatedAt',
  'txHash',
  'executedAt',
  'statusReason',
  'statusData',
  'notificationWebhookUrl',
  'webhookUrl',
  'kind',
  'nonce',
  'launch',
] as const;

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
    // The record as LaunchKind left it: its fields by name (a field added later is not among them).
    const before = Object.fromEntries(RECORD_FIELDS_BEFORE.map((key) => [key, key === 'launch' ? LAUNCH_BEFORE_FACTS : RECORD_FIELDS_BEFORE_EXITS[key]!]));
    await q.query(recordJsonFunction(before));
    await q.query(`ALTER TABLE "intent"."intents" DROP COLUMN "webhook_batch"`);
  }
}
