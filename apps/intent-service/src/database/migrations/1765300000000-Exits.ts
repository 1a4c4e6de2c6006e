import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RECORD_FIELDS_BEFORE_EXITS, recordJsonFunction } from '../../intents/intent-record.sql.js';

/**
 * Exit intents (docs/design/exits.md): a sell stored as an intent (`is_exit`), with its triggers,
 * its entry price (given, or measured from the buy it follows), the highest price seen, and the
 * trigger that fired with the price measured then. `exit_spec`: a buy's `exit` object, the exit
 * created (in the same statement) when the buy completes.
 */
export class Exits1765300000000 implements MigrationInterface {
  name = 'Exits1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents"
      ADD "is_exit" boolean NOT NULL DEFAULT false,
      ADD "exit_amount" numeric(78,0),
      ADD "take_profit" numeric,
      ADD "stop_loss" numeric,
      ADD "trailing_stop" numeric,
      ADD "on_rug" boolean,
      ADD "entry_price" numeric(78,0),
      ADD "follows_intent_id" uuid,
      ADD "highest_price" numeric(78,0),
      ADD "fired_trigger" text,
      ADD "fired_price" numeric(78,0),
      ADD "exit_spec" jsonb`);
    await q.query(
      `ALTER TABLE "intent"."intents" ADD CONSTRAINT "intents_fired_trigger_check" CHECK (fired_trigger IN ('take_profit', 'stop_loss', 'trailing_stop', 'on_rug'))`,
    );
    await q.query(`CREATE INDEX "intents_pending_exits_idx" ON "intent"."intents" ("chain_id") WHERE status = 'pending' AND is_exit`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(recordJsonFunction(RECORD_FIELDS_BEFORE_EXITS));
    await q.query(`DELETE FROM "intent"."intents" WHERE is_exit`);
    await q.query(`DROP INDEX "intent"."intents_pending_exits_idx"`);
    await q.query(`ALTER TABLE "intent"."intents" DROP CONSTRAINT "intents_fired_trigger_check"`);
    await q.query(`ALTER TABLE "intent"."intents" DROP COLUMN "is_exit", DROP COLUMN "exit_amount", DROP COLUMN "take_profit", DROP COLUMN "stop_loss",
      DROP COLUMN "trailing_stop", DROP COLUMN "on_rug", DROP COLUMN "entry_price", DROP COLUMN "follows_intent_id", DROP COLUMN "highest_price",
      DROP COLUMN "fired_trigger", DROP COLUMN "fired_price", DROP COLUMN "exit_spec"`);
  }
}
