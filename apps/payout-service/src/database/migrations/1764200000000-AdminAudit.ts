import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit log of operators' actions on other tenants' sources (e.g. a payout to an address of their choosing). */
export class AdminAudit1764200000000 implements MigrationInterface {
  name = 'AdminAudit1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "payout"."admin_audit" ("id" uuid NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "key_id" uuid, "tenant_id" uuid NOT NULL, "action" text NOT NULL, "source_id" text NOT NULL, "source_tenant_id" uuid, "payout_id" uuid, "address" text, "chain_id" integer, "asset" text, "amount" numeric, CONSTRAINT "PK_5ad48a4d9d16397ef37e28bb0be" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "admin_audit_source_idx" ON "payout"."admin_audit" ("source_id", "at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "payout"."admin_audit"`);
  }
}
