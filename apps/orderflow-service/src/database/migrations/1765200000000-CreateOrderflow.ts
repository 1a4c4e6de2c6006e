import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Order flow: private transactions (the auction's targets), searchers' bundles (bids), each
 * round's decision (`submissions`: one per target and block, the first written wins, so replicas
 * never submit a target differently), captures (a winning backrun mined; credited once) and the
 * outbox of `mev.captured` events.
 */
export class CreateOrderflow1765200000000 implements MigrationInterface {
  name = 'CreateOrderflow1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "orderflow"."private_txs" (
      "chain_id" integer NOT NULL,
      "hash" text NOT NULL,
      "source_id" text NOT NULL,
      "tenant_id" uuid NOT NULL,
      "sender" text NOT NULL,
      "nonce" bigint NOT NULL,
      "raw" text NOT NULL,
      "hints" text NOT NULL,
      "first_block" bigint NOT NULL,
      "max_block" bigint NOT NULL,
      "use_mempool" boolean NOT NULL DEFAULT false,
      "hint_json" text NOT NULL,
      "hint_published_at" TIMESTAMP WITH TIME ZONE,
      "status" text NOT NULL DEFAULT 'pending',
      "block_number" bigint,
      "block_hash" text,
      "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "private_txs_status_check" CHECK (status IN ('pending', 'included', 'expired', 'public')),
      CONSTRAINT "PK_private_txs" PRIMARY KEY ("chain_id", "hash"))`);
    await q.query(`CREATE INDEX "private_txs_open_idx" ON "orderflow"."private_txs" ("chain_id") WHERE status IN ('pending', 'included')`);
    await q.query(`CREATE INDEX "private_txs_hash_idx" ON "orderflow"."private_txs" ("hash")`);
    await q.query(`CREATE UNIQUE INDEX "private_txs_sender_nonce_key" ON "orderflow"."private_txs" ("chain_id", "sender", "nonce") WHERE status = 'pending'`);
    await q.query(`CREATE TABLE "orderflow"."bundles" (
      "id" uuid NOT NULL,
      "chain_id" integer NOT NULL,
      "target_hash" text NOT NULL,
      "searcher" text NOT NULL,
      "bundle_hash" text NOT NULL,
      "txs" text NOT NULL,
      "block_min" bigint NOT NULL,
      "block_max" bigint NOT NULL,
      "bid" numeric NOT NULL,
      "sim_block" bigint NOT NULL,
      "dropped" text,
      "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "bundles_bid_check" CHECK (bid > 0),
      CONSTRAINT "PK_bundles" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "bundles_target_idx" ON "orderflow"."bundles" ("chain_id", "target_hash")`);
    await q.query(`CREATE TABLE "orderflow"."submissions" (
      "chain_id" integer NOT NULL,
      "target_hash" text NOT NULL,
      "block_number" bigint NOT NULL,
      "bundle_id" uuid,
      "bid" numeric,
      "decided_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "sent_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "PK_submissions" PRIMARY KEY ("chain_id", "target_hash", "block_number"))`);
    await q.query(`CREATE TABLE "orderflow"."captures" (
      "chain_id" integer NOT NULL,
      "target_hash" text NOT NULL,
      "bundle_id" uuid NOT NULL,
      "source_id" text NOT NULL,
      "block_number" bigint NOT NULL,
      "block_hash" text NOT NULL,
      "bid" numeric NOT NULL,
      "paid" numeric,
      "credited" numeric,
      "status" text NOT NULL DEFAULT 'observed',
      "observed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "credited_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "captures_status_check" CHECK (status IN ('observed', 'credited', 'nothing')),
      CONSTRAINT "PK_captures" PRIMARY KEY ("chain_id", "target_hash"))`);
    await q.query(`CREATE INDEX "captures_observed_idx" ON "orderflow"."captures" ("chain_id", "block_number") WHERE status = 'observed'`);
    await q.query(`CREATE TABLE "orderflow"."outbox" (
      "id" uuid NOT NULL,
      "subject" text NOT NULL,
      "payload" text NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "published_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "PK_outbox" PRIMARY KEY ("id"))`);
    await q.query(`CREATE INDEX "outbox_unpublished_idx" ON "orderflow"."outbox" ("created_at") WHERE published_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['outbox', 'captures', 'submissions', 'bundles', 'private_txs']) await q.query(`DROP TABLE "orderflow"."${table}"`);
  }
}
