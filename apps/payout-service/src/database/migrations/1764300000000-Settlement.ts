import type { MigrationInterface, QueryRunner } from 'typeorm';

const payoutJson = (extra: string) => `
      CREATE OR REPLACE FUNCTION "payout"."payout_json"(p "payout"."payouts") RETURNS json LANGUAGE sql STABLE AS $$
        SELECT json_build_object(
          'id', p.id,
          'sourceId', p.source_id,
          'address', p.address,
          'chainId', p.chain_id,
          'asset', p.asset,
          'amount', trim_scale(p.amount),
          'status', p.status,
          'txHash', p.tx_hash${extra}
        )
      $$`;

/**
 * Automatic settlement: signed payout transactions (with nonce and sender) stored before they are
 * sent, `settlement_nonces` per treasury, `cancel_tx` for replacing a stuck one, `email`, and
 * `tx_hash` (docs/design/payouts-settlement.md, docs/design/code-notes.md#settlement-migration).
 */
export class Settlement1764300000000 implements MigrationInterface {
  name = 'Settlement1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "payout"."payouts"
      ADD "sender" text,
      ADD "tx_nonce" bigint,
      ADD "signed_tx" text,
      ADD "sent_at" TIMESTAMP WITH TIME ZONE,
      ADD "cancel_tx" text,
      ADD "email" text`);
    await q.query(`CREATE INDEX "payouts_settling_idx" ON "payout"."payouts" ("chain_id") WHERE status = 'TX_PENDING' AND signed_tx IS NOT NULL`);
    await q.query(`CREATE TABLE "payout"."settlement_nonces" (
      "chain_id" integer NOT NULL,
      "address" text NOT NULL,
      "next_nonce" bigint NOT NULL,
      CONSTRAINT "PK_settlement_nonces" PRIMARY KEY ("chain_id", "address"))`);
    await q.query(
      payoutJson(`,
          'tx_hash', p.tx_hash`),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(payoutJson(''));
    await q.query(`DROP TABLE "payout"."settlement_nonces"`);
    await q.query(`DROP INDEX "payout"."payouts_settling_idx"`);
    await q.query(
      `ALTER TABLE "payout"."payouts" DROP COLUMN "email", DROP COLUMN "cancel_tx", DROP COLUMN "sent_at", DROP COLUMN "signed_tx", DROP COLUMN "tx_nonce", DROP COLUMN "sender"`,
    );
  }
}
