import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RECORD_FIELDS_BEFORE_EXITS, recordJsonFunction } from '../../intents/intent-record.sql.js';
import { LAUNCH_WITH_FACTS, RECORD_FIELDS_OF_LAUNCH_FACTS } from './1765100000000-LaunchFacts.js';

/**
 * Merkle's drop-in (docs/merkle.md):
 * - `intents.webhook_protocol`: what the signing webhook speaks (`merkle`, the default from now
 *   on, or `tradeinfra`); the intents created before it were created for ours, so they keep it;
 * - a wallet intent may have no nonce (Merkle's 5-field BuyIntent), never a nonce without a signature;
 * - `intent.tokens`: who deployed each token (the record's `token`).
 */
export class MerkleDropIn1765200000000 implements MigrationInterface {
  name = 'MerkleDropIn1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" ADD "webhook_protocol" text`);
    await q.query(`UPDATE "intent"."intents" SET "webhook_protocol" = 'tradeinfra' WHERE "webhook_url" IS NOT NULL`);
    await q.query(`ALTER TABLE "intent"."intents" ADD CONSTRAINT "intents_webhook_protocol_check" CHECK (webhook_protocol IN ('merkle', 'tradeinfra'))`);
    await q.query(`ALTER TABLE "intent"."intents" DROP CONSTRAINT "intents_wallet_intent_check"`);
    await q.query(`ALTER TABLE "intent"."intents" ADD CONSTRAINT "intents_wallet_intent_check" CHECK (signature IS NOT NULL OR intent_nonce IS NULL)`);
    await q.query(`CREATE TABLE "intent"."tokens" (
      "chain_id" integer NOT NULL,
      "token" text NOT NULL,
      "deployer" text,
      "deployer_tx_hash" text,
      "deployer_block_number" bigint,
      "deployer_timestamp" bigint,
      "attempts" integer NOT NULL DEFAULT 0,
      "looked_up_at" timestamptz NOT NULL DEFAULT now(),
      "settled" boolean NOT NULL DEFAULT false,
      CONSTRAINT "PK_intent_tokens" PRIMARY KEY ("chain_id", "token"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The record as LaunchFacts left it: its fields by name (a field added later is not among them).
    const before = Object.fromEntries(
      RECORD_FIELDS_OF_LAUNCH_FACTS.map((key) => [key, key === 'launch' ? LAUNCH_WITH_FACTS : RECORD_FIELDS_BEFORE_EXITS[key]!]),
    );
    await q.query(recordJsonFunction(before));
    await q.query(`DROP TABLE "intent"."tokens"`);
    await q.query(`DELETE FROM "intent"."intents" WHERE signature IS NOT NULL AND intent_nonce IS NULL`);
    await q.query(`ALTER TABLE "intent"."intents" DROP CONSTRAINT "intents_wallet_intent_check"`);
    await q.query(`ALTER TABLE "intent"."intents" ADD CONSTRAINT "intents_wallet_intent_check" CHECK ((signature IS NULL) = (intent_nonce IS NULL))`);
    await q.query(`ALTER TABLE "intent"."intents" DROP CONSTRAINT "intents_webhook_protocol_check"`);
    await q.query(`ALTER TABLE "intent"."intents" DROP COLUMN "webhook_protocol"`);
  }
}
