import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The record as the StatusData migration left it (restored by `down`). */
const RECORD_FIELDS_BEFORE = `
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
          'webhookUrl', x.webhook_url`;

const recordJson = (fields: string) => `
      CREATE OR REPLACE FUNCTION "intent"."record_json"(x "intent"."intents") RETURNS json LANGUAGE sql STABLE AS $$
        SELECT json_build_object(${fields}
        )
      $$`;

/**
 * Wallet intents (`POST /v1/wallet/intent`), executed through the chain's IntentExecutor by the
 * service's relayer: `signature` and `intent_nonce` (set exactly for wallet intents), `tx_sender`
 * (the relayer, when it sent the buy); the record gains `kind` and `nonce`.
 */
export class WalletIntents1764400000000 implements MigrationInterface {
  name = 'WalletIntents1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents"
      ADD "signature" text,
      ADD "intent_nonce" numeric(78,0),
      ADD "tx_sender" text,
      ADD CONSTRAINT "intents_wallet_intent_check" CHECK ((signature IS NULL) = (intent_nonce IS NULL))`);
    await q.query(
      recordJson(`${RECORD_FIELDS_BEFORE},
          'kind', CASE WHEN x.signature IS NULL THEN 'bot' ELSE 'wallet' END,
          'nonce', x.intent_nonce::text`),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(recordJson(RECORD_FIELDS_BEFORE));
    await q.query(`ALTER TABLE "intent"."intents"
      DROP CONSTRAINT "intents_wallet_intent_check",
      DROP COLUMN "tx_sender",
      DROP COLUMN "intent_nonce",
      DROP COLUMN "signature"`);
  }
}
