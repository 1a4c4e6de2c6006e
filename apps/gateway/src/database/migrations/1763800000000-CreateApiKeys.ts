import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateApiKeys1763800000000 implements MigrationInterface {
  name = 'CreateApiKeys1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "gateway"."tenants" ("id" uuid NOT NULL, "name" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_53be67a04681c66b87ee27c9321" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "tenants_name_key" ON "gateway"."tenants" ("name")`);
    await q.query(
      `CREATE TABLE "gateway"."api_keys" ("id" uuid NOT NULL, "tenant_id" uuid NOT NULL, "name" text NOT NULL, "prefix" text NOT NULL, "key_hash" text NOT NULL, "scopes" text array NOT NULL, "rate_limit_per_second" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "api_keys_tenant_idx" ON "gateway"."api_keys" ("tenant_id")`);
    await q.query(`CREATE UNIQUE INDEX "api_keys_hash_key" ON "gateway"."api_keys" ("key_hash")`);
    await q.query(
      `ALTER TABLE "gateway"."api_keys" ADD CONSTRAINT "api_keys_tenant_fk" FOREIGN KEY ("tenant_id") REFERENCES "gateway"."tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "gateway"."api_keys"`);
    await q.query(`DROP TABLE "gateway"."tenants"`);
  }
}
