import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `intents.signed_tx` is kept out of line and uncompressed (STORAGE EXTERNAL). A signed buy is
 * ~6 KB of hex, written once on the launch's path (as the buy is marked submitted) and read back
 * only to send it again; compressing it (pglz, the default) took about half the time of marking a
 * wave of 50 buys submitted on a 2-core box (~20 ms against ~8). Rows already written keep theirs.
 */
export class SignedTxStorage1765000000000 implements MigrationInterface {
  name = 'SignedTxStorage1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" ALTER COLUMN "signed_tx" SET STORAGE EXTERNAL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" ALTER COLUMN "signed_tx" SET STORAGE EXTENDED`);
  }
}
