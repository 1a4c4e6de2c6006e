import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A tenant's intents by status, newest first, without naming wallets (the customer dashboard's list). */
export class TenantSearch1764500000000 implements MigrationInterface {
  name = 'TenantSearch1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "intents_tenant_status_idx" ON "intent"."intents" ("tenant_id", "status", "id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "intent"."intents_tenant_status_idx"`);
  }
}
