import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `intent.record_json` as the WalletIntents migration left it (restored by `down`). */
const RECORD_JSON_BEFORE = `
      CREATE OR REPLACE FUNCTION "intent"."record_json"(x "intent"."intents") RETURNS json LANGUAGE sql STABLE AS $$
        SELECT json_build_object(
          'id', x.id,
          'status', x.status,
          'chainId', x.chain_id,
          'wallet', x.wallet,
          'tokenAddress', x.token_address,
          'bribe', x.bribe::text,
          'buyAmount', x.buy_amount::text,
          'expiry', extract(epoch FROM x.expires_at)::bigint,
          'maxBuyTax', x.max_buy_tax,
          'maxSellTax', x.max_sell_tax,
          'minIn', x.min_in::text,
          'minOut', x.min_out::text,
          'minLiquidity', x.min_liquidity::text,
          'feeBps', x.fee_bps,
          'feeRecipient', x.fee_recipient,
          'firstOrFail', x.first_or_fail,
          'maxSlippageBps', x.max_slippage_bps,
          'gasTip', x.gas_tip::text,
          'createdAt', to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'updatedAt', to_char(x.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'txHash', x.tx_hash,
          'executedAt', to_char(x.executed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'statusReason', x.status_reason,
          'statusData', x.status_data,
          'notificationWebhookUrl', x.notification_webhook_url,
          'webhookUrl', x.webhook_url,
          'kind', CASE WHEN x.signature IS NULL THEN 'bot' ELSE 'wallet' END,
          'nonce', x.intent_nonce::text
        )
      $$`;

/**
 * The launch an intent was acted on at (the record's `launch`): `intents.launch_type` and
 * `launch_tx_hash`, `launches.tx_hash` and `seen_pending` (docs/design/launch-watching.md). From
 * here on `record_json` is defined in code (intents/intent-record.sql.ts) and recreated after
 * every migration run; `down` restores the last migration-made version.
 */
export class LaunchKind1764800000000 implements MigrationInterface {
  name = 'LaunchKind1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents"
      ADD "launch_type" text,
      ADD "launch_tx_hash" text,
      ADD CONSTRAINT "intents_launch_type_check" CHECK (launch_type IN ('public_transaction', 'private_transaction', 'block'))`);
    await q.query(`ALTER TABLE "intent"."launches" ADD "tx_hash" text, ADD "seen_pending" boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(RECORD_JSON_BEFORE);
    await q.query(`ALTER TABLE "intent"."launches" DROP COLUMN "seen_pending", DROP COLUMN "tx_hash"`);
    await q.query(`ALTER TABLE "intent"."intents" DROP CONSTRAINT "intents_launch_type_check", DROP COLUMN "launch_tx_hash", DROP COLUMN "launch_type"`);
  }
}
