import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Launches seen in the mempool, before their block: what the executor buys behind. */
export class PendingLaunches1764700000000 implements MigrationInterface {
  name = 'PendingLaunches1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "intent"."pending_launches" (
      "chain_id" integer NOT NULL,
      "token" text NOT NULL,
      "pair" text NOT NULL,
      "tx_hash" text NOT NULL,
      "raw" text NOT NULL,
      "sender" text NOT NULL,
      "nonce" bigint NOT NULL,
      "token_reserve" numeric(78,0) NOT NULL,
      "native_reserve" numeric(78,0) NOT NULL,
      "state_after" jsonb NOT NULL,
      "head_block" bigint NOT NULL,
      "seen_at" timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT "pending_launches_pkey" PRIMARY KEY ("chain_id", "token")
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "intent"."pending_launches"`);
  }
}
