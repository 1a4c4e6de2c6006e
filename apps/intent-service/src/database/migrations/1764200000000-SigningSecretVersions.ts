import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenants rotate their webhook signing secret: each one's version is kept here (never the
 * secret). The master secret in `settings` is sealed with SIGNING_SECRETS_KEY by the service at
 * start (a migration has no key), keeping every existing tenant's secret (version 0) as it was.
 */
export class SigningSecretVersions1764200000000 implements MigrationInterface {
  name = 'SigningSecretVersions1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "intent"."signing_secrets" ("tenant_id" uuid NOT NULL, "version" integer NOT NULL, "rotated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9d41302f6249e39412922434324" PRIMARY KEY ("tenant_id"))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "intent"."signing_secrets"`);
  }
}
