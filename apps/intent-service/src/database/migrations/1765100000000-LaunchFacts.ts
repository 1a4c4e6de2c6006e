import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RECORD_FIELDS_BEFORE_EXITS, recordJsonFunction } from '../../intents/intent-record.sql.js';

/** The intent record's fields as this migration leaves them, in order (a later migration's `down` restores them). */
export const RECORD_FIELDS_OF_LAUNCH_FACTS = [
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
  'webhookBatch',
  'kind',
  'nonce',
  'launch',
] as const;

/** The record's `launch` as this migration leaves it: its block from the row, else from `intent.launches`. */
export const LAUNCH_WITH_FACTS = `CASE WHEN x.launch_type IS NULL THEN NULL ELSE json_build_object(
            'type', x.launch_type,
            'txHash', x.launch_tx_hash,
            'blockNumber', coalesce(x.launch_block, (SELECT l.block_number FROM intent.launches l
              WHERE l.chain_id = x.chain_id AND l.token = lower(x.token_address)
                AND (x.launch_tx_hash IS NULL OR l.tx_hash IS NULL OR l.tx_hash = x.launch_tx_hash)))) END`;

/** The record's `launch` before this migration: its block from `intent.launches` only (restored by `down`, and by earlier migrations' `down`). */
export const LAUNCH_BEFORE_FACTS = `CASE WHEN x.launch_type IS NULL THEN NULL ELSE json_build_object(
            'type', x.launch_type,
            'txHash', x.launch_tx_hash,
            'blockNumber', (SELECT l.block_number FROM intent.launches l
              WHERE l.chain_id = x.chain_id AND l.token = lower(x.token_address)
                AND (x.launch_tx_hash IS NULL OR l.tx_hash IS NULL OR l.tx_hash = x.launch_tx_hash))) END`;

/**
 * What an intent knows of the launch it was acted on at, on its own row: the sender and nonce of
 * the pending launch a buy was sent behind, and the launch's block, written with the outcome
 * (docs/design/following-buys.md).
 */
export class LaunchFacts1765100000000 implements MigrationInterface {
  name = 'LaunchFacts1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" ADD COLUMN "launch_sender" text, ADD COLUMN "launch_nonce" bigint, ADD COLUMN "launch_block" bigint`);
  }

  async down(q: QueryRunner): Promise<void> {
    const before = Object.fromEntries(
      RECORD_FIELDS_OF_LAUNCH_FACTS.map((key) => [key, key === 'launch' ? LAUNCH_BEFORE_FACTS : RECORD_FIELDS_BEFORE_EXITS[key]!]),
    );
    await q.query(recordJsonFunction(before));
    await q.query(`ALTER TABLE "intent"."intents" DROP COLUMN "launch_sender", DROP COLUMN "launch_nonce", DROP COLUMN "launch_block"`);
  }
}
