import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sender and nonce of the pending launch transaction a buy was sent behind: with them, a buy
 * that reverts because its launch never happened (replaced by another transaction with its
 * nonce, or dropped) is told from a real failure, whatever became of the pending launch's row.
 */
export class LaunchSender1765100000000 implements MigrationInterface {
  name = 'LaunchSender1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" ADD COLUMN "launch_sender" text, ADD COLUMN "launch_nonce" bigint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "intent"."intents" DROP COLUMN "launch_sender", DROP COLUMN "launch_nonce"`);
  }
}
