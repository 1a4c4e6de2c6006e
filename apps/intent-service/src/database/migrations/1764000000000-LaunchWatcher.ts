import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The launch watcher's block cursor (with recent hashes, for reorgs) and the launches it saw. */
export class LaunchWatcher1764000000000 implements MigrationInterface {
  name = 'LaunchWatcher1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "intent"."chain_blocks" ("chain_id" integer NOT NULL, "number" bigint NOT NULL, "hash" text NOT NULL, CONSTRAINT "PK_chain_blocks" PRIMARY KEY ("chain_id", "number"))`,
    );
    await q.query(
      `CREATE TABLE "intent"."launches" ("chain_id" integer NOT NULL, "token" text NOT NULL, "pair" text NOT NULL, "block_number" bigint NOT NULL, "block_hash" text NOT NULL, "detected_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_launches" PRIMARY KEY ("chain_id", "token"))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "intent"."launches"`);
    await q.query(`DROP TABLE "intent"."chain_blocks"`);
  }
}
