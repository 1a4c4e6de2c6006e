import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `intents.signed_approve_tx`: a sent exit's signed approve, stored with its sell (`signed_tx`)
 * when it is marked submitted, so a sell sent again after a restart goes behind its approve
 * (docs/design/exits.md). Kept out of line and uncompressed, as `signed_tx`.
 */
export class ExitApproveTx1765400000000 implements MigrationInterface {
  name = 'ExitApproveTx1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" ADD "signed_approve_tx" text`);
    await q.query(`ALTER TABLE "intent"."intents" ALTER COLUMN "signed_approve_tx" SET STORAGE EXTERNAL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" DROP COLUMN "signed_approve_tx"`);
  }
}
