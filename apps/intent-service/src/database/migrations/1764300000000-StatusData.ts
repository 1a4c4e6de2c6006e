import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `status_data`: the measured values behind the latest status change (a tax against its limit,
 * the quote against minOut, the buy's hash…), as the notification's `data` carries them; NULL
 * when there are none. `record_json` gains `statusData`.
 */
export class StatusData1764300000000 implements MigrationInterface {
  name = 'StatusData1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" ADD "status_data" jsonb`);
    await q.query(`
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
          'webhookUrl', x.webhook_url
        )
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
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
          'notificationWebhookUrl', x.notification_webhook_url,
          'webhookUrl', x.webhook_url
        )
      $$`);
    await q.query(`ALTER TABLE "intent"."intents" DROP COLUMN "status_data"`);
  }
}
