import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateLedger1763900000000 implements MigrationInterface {
  name = 'CreateLedger1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "payout"."sources" ("id" text NOT NULL, "tenant_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_85523beafe5a2a6b90b02096443" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "sources_tenant_idx" ON "payout"."sources" ("tenant_id")`);
    await q.query(
      `CREATE TABLE "payout"."entries" ("id" uuid NOT NULL, "event_id" uuid NOT NULL, "chain_id" integer NOT NULL, "reference" text NOT NULL, "source_id" text, "generated_by_source_id" text, "asset" text NOT NULL, "amount" numeric NOT NULL, "type" text NOT NULL, "status" text NOT NULL, "payout_id" uuid, "claimed_by" uuid, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "entries_amount_check" CHECK (amount > 0), CONSTRAINT "entries_status_check" CHECK ((status = 'PENDING' AND payout_id IS NULL) OR (status = 'PAID' AND payout_id IS NOT NULL)), CONSTRAINT "PK_23d4e7e9b58d9939f113832915b" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "entries_event_id_key" ON "payout"."entries" ("event_id")`);
    await q.query(`CREATE INDEX "entries_claimed_by_idx" ON "payout"."entries" ("claimed_by") WHERE claimed_by IS NOT NULL`);
    await q.query(
      `CREATE INDEX "entries_claimable_idx" ON "payout"."entries" ("source_id", "chain_id", "asset") WHERE status = 'PENDING' AND claimed_by IS NULL`,
    );
    await q.query(`CREATE INDEX "entries_source_idx" ON "payout"."entries" ("source_id", "id")`);
    await q.query(`CREATE INDEX "entries_reference_idx" ON "payout"."entries" ("reference")`);
    await q.query(
      `CREATE TABLE "payout"."payouts" ("id" uuid NOT NULL, "source_id" text NOT NULL, "address" text NOT NULL, "chain_id" integer NOT NULL, "asset" text NOT NULL, "amount" numeric NOT NULL, "status" text NOT NULL, "tx_hash" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "payouts_status_check" CHECK (status IN ('PENDING', 'TX_PENDING', 'PAID', 'TX_FAILED')), CONSTRAINT "PK_76855dc4f0a6c18c72eea302e87" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "payouts_source_idx" ON "payout"."payouts" ("source_id")`);
    // The spec's entry and payout objects, rendered by the database: amounts are written as JSON
    // numbers from the exact decimal (never through a float); `generatedBySourceId` only when set.
    await q.query(`
      CREATE FUNCTION "payout"."entry_json"(e "payout"."entries") RETURNS json LANGUAGE sql STABLE AS $$
        SELECT json_strip_nulls(json_build_object(
          'id', e.id,
          'asset', e.asset,
          'amount', trim_scale(e.amount),
          'sourceId', coalesce(e.source_id, ''),
          'chainId', e.chain_id,
          'type', e.type,
          'reference', e.reference,
          'generatedBySourceId', e.generated_by_source_id,
          'payoutId', coalesce(e.payout_id::text, ''),
          'createdAt', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'status', e.status
        ))
      $$`);
    await q.query(`
      CREATE FUNCTION "payout"."payout_json"(p "payout"."payouts") RETURNS json LANGUAGE sql STABLE AS $$
        SELECT json_build_object(
          'id', p.id,
          'sourceId', p.source_id,
          'address', p.address,
          'chainId', p.chain_id,
          'asset', p.asset,
          'amount', trim_scale(p.amount),
          'status', p.status,
          'txHash', p.tx_hash
        )
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "payout"."payout_json"("payout"."payouts")`);
    await q.query(`DROP FUNCTION "payout"."entry_json"("payout"."entries")`);
    await q.query(`DROP TABLE "payout"."payouts"`);
    await q.query(`DROP TABLE "payout"."entries"`);
    await q.query(`DROP TABLE "payout"."sources"`);
  }
}
