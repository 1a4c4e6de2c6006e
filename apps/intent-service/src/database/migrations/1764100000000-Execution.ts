import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Execution of intents at launch: the signing webhook (`webhook_url`) joins the record, and the
 * execution's state (`phase`, `claim_token`, the submitted buy's `signed_tx`, `tx_nonce`,
 * `target_block`, `submitted_at`) lives on the intent row, so cancel, expiry and execution decide
 * on one row (docs/design/exactly-once-execution.md).
 */
export class Execution1764100000000 implements MigrationInterface {
  name = 'Execution1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents"
      ADD "webhook_url" text,
      ADD "phase" text,
      ADD "claim_token" uuid,
      ADD "claimed_at" TIMESTAMP WITH TIME ZONE,
      ADD "signed_tx" text,
      ADD "tx_nonce" bigint,
      ADD "target_block" bigint,
      ADD "submitted_at" TIMESTAMP WITH TIME ZONE,
      ADD CONSTRAINT "intents_phase_check" CHECK (phase IN ('claimed', 'submitted'))`);
    await q.query(`CREATE INDEX "intents_pending_token_idx" ON "intent"."intents" ("chain_id", lower("token_address")) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX "intents_submitted_idx" ON "intent"."intents" ("chain_id") WHERE status = 'pending' AND phase = 'submitted'`);
    await q.query(`ALTER TABLE "intent"."launches" ADD "seen_at" TIMESTAMP WITH TIME ZONE`);
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
          'notificationWebhookUrl', x.notification_webhook_url
        )
      $$`);
    await q.query(`ALTER TABLE "intent"."launches" DROP COLUMN "seen_at"`);
    await q.query(`DROP INDEX "intent"."intents_submitted_idx"`);
    await q.query(`DROP INDEX "intent"."intents_pending_token_idx"`);
    await q.query(`ALTER TABLE "intent"."intents" DROP CONSTRAINT "intents_phase_check", DROP COLUMN "webhook_url", DROP COLUMN "phase", DROP COLUMN "claim_token",
      DROP COLUMN "claimed_at", DROP COLUMN "signed_tx", DROP COLUMN "tx_nonce", DROP COLUMN "target_block", DROP COLUMN "submitted_at"`);
  }
}
