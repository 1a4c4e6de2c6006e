import type { IntentRecord } from '@tradeinfra/contracts';
import type { DataSource } from 'typeorm';
import type { TestDatabase } from '@tradeinfra/test-support';
import { runMigrations } from '../database/data-source.js';
import { migrations } from '../database/migrations/index.js';
import { WalletIntents1764400000000 } from '../database/migrations/1764400000000-WalletIntents.js';
import { INTENT_RECORD_FIELDS } from '../intents/intent-record.sql.js';
import { toEvent } from '../outbox/outbox.relay.js';
import { migratedDatabase } from './harness.js';

describe('statusData on the intent record (migration StatusData)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    ({ db, ds } = await migratedDatabase());
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const insert = (statusData: string | null) =>
    ds.query(
      `INSERT INTO intent.intents AS x (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at, status_reason, status_data)
       VALUES (intent.uuid_v7(), gen_random_uuid(), 'failed', 1, '0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000000000002',
               0, 1, now() + interval '1 hour', 'min_out_not_met', $1::jsonb)
       RETURNING intent.record_json(x) AS record, x.tenant_id`,
      [statusData],
    ) as Promise<{ record: IntentRecord; tenant_id: string }[]>;

  it('renders statusData exactly as stored, null when there is none, and the notification carries it as data', async () => {
    const data = { minOut: '115792089237316195423570985008687907853269984665640564039457584007913129639935', quoted: '12345678901234567890123' };
    const [{ record, tenant_id: tenantId }] = await insert(JSON.stringify(data));
    expect(record).toMatchObject({ status: 'failed', statusReason: 'min_out_not_met', statusData: data });
    const [{ record: none }] = await insert(null);
    expect(none.statusData).toBeNull();

    const event = toEvent({
      id: '019ab5e1-7c2a-7f00-8a1e-4c1d2e3f4a5b',
      type: 'failed',
      tenantId,
      intent: record,
      createdAt: new Date('2026-11-23T21:40:12.345Z'),
    });
    expect(event).toEqual({
      id: '019ab5e1-7c2a-7f00-8a1e-4c1d2e3f4a5b',
      intentId: record.id,
      chainId: 1,
      type: 'intent_ignored',
      reason: 'min_out_not_met',
      data,
      event: 'failed',
      occurredAt: '2026-11-23T21:40:12.345Z',
      tenantId,
      intent: record,
    });
    // A record written before the column existed (no statusData key) renders with empty data.
    const { statusData: _gone, ...old } = record;
    expect(toEvent({ id: event.id, type: 'failed', tenantId, intent: old, createdAt: new Date() }).data).toEqual({});
  });

  it('reverts and re-applies cleanly (with the later migrations)', async () => {
    const render = async () =>
      ((await ds.query(`SELECT intent.record_json(x) AS record FROM intent.intents x LIMIT 1`)) as { record: Record<string, unknown> }[])[0]!.record;
    // Migrations after WalletIntents are reverted first (LaunchKind's down restores WalletIntents' record).
    const later = migrations.slice(migrations.indexOf(WalletIntents1764400000000) + 1).map((m) => m.name);
    for (let i = 0; i < later.length; i++) await ds.undoLastMigration();
    await ds.undoLastMigration(); // WalletIntents
    const beforeWallet = await render();
    expect(beforeWallet).not.toHaveProperty('kind');
    expect(beforeWallet).toHaveProperty('statusData');
    await ds.undoLastMigration(); // BatchIdempotency
    await ds.undoLastMigration(); // StatusData
    const [{ record }] = (await ds.query(`SELECT intent.record_json(x) AS record FROM intent.intents x LIMIT 1`)) as { record: Record<string, unknown> }[];
    expect(record).not.toHaveProperty('statusData');
    expect(record).toHaveProperty('webhookUrl');
    const columns = await ds.query(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = 'intent' AND table_name = 'intents' AND column_name = 'status_data'`,
    );
    expect(columns).toHaveLength(0);
    expect(await runMigrations(ds)).toEqual(['StatusData1764300000000', 'BatchIdempotency1764350000000', 'WalletIntents1764400000000', ...later]);
    const again = await render();
    expect(again).toHaveProperty('statusData', null);
    expect(again).toMatchObject({ kind: 'bot', nonce: null, launch: null });
    // After a migration run the record is the one intent-record.sql.ts defines, field for field.
    expect(Object.keys(again).sort()).toEqual(Object.keys(INTENT_RECORD_FIELDS).sort());
  });
});
