import { randomBytes, randomUUID } from 'node:crypto';
import { ConsoleLogger, type INestMicroservice } from '@nestjs/common';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import {
  MEV_CAPTURE_STREAM,
  MEV_CAPTURE_SUBJECTS,
  mevCaptureSubject,
  PAYOUT_ENTRY_RECORD,
  PAYOUT_REQUEST,
  PAYOUT_SOURCE_REGISTER,
  type PayoutViewer,
} from '@tradeinfra/contracts';
import { eventually, TestDatabase, TestNatsServer, TestRpcClient } from '@tradeinfra/test-support';
import { createPayoutService } from '../bootstrap.js';
import { loadEnv, type PayoutServiceEnv } from '../config/env.js';
import { createDataSource, runMigrations } from '../database/data-source.js';
import { LedgerRepository } from '../ledger/ledger.repository.js';
import { CONSUMER_NAME } from '../ledger/mev-consumer.js';

/** Keeps the warnings the service logs (the audit line among them). */
class RecordingLogger extends ConsoleLogger {
  readonly warnings: string[] = [];
  override warn(message: unknown, ...rest: unknown[]): void {
    this.warnings.push(String(message));
    void rest;
  }
  override log(): void {}
}

const hash = () => `0x${randomBytes(32).toString('hex')}`;
const event = (o: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  chainId: 1,
  txHash: hash(),
  sourceId: 'ingest-src',
  asset: 'ETH',
  amount: '1.5',
  type: 'mev',
  time: new Date().toISOString(),
  ...o,
});

/** The payout service on its own database and nats-server (Debian's 2.9.10 here). */
describe('payout service on Postgres and NATS', () => {
  let nats: TestNatsServer;
  let db: TestDatabase;
  let env: PayoutServiceEnv;
  let app: INestMicroservice;
  let rpc: TestRpcClient;
  let jsm: JetStreamManager;
  const logger = new RecordingLogger();
  const publish = async (...events: (object | string)[]) => {
    const js = jetstream(rpc.nc);
    for (const e of events) await js.publish(mevCaptureSubject(1), typeof e === 'string' ? e : JSON.stringify(e));
  };
  /** Every published event handled: delivered, and none pending or waiting for an ack. */
  const drained = async () => {
    const [stream, consumer] = await Promise.all([jsm.streams.info(MEV_CAPTURE_STREAM), jsm.consumers.info(MEV_CAPTURE_STREAM, CONSUMER_NAME)]);
    return consumer.num_pending === 0 && consumer.num_ack_pending === 0 && consumer.delivered.stream_seq >= stream.state.last_seq;
  };
  const amountsOf = async (eventId: string) =>
    (await db.query<{ amount: string }>(`SELECT amount::text FROM payout.entries WHERE event_id = $1`, [eventId])).map((r) => r.amount);

  // Events published before the service starts arrive in its first batch, together.
  const same = randomUUID();
  const firstBatch = [event({ id: same, amount: '1.5' }), event({ id: same, amount: '9.75' }), event({ id: same, amount: '2' }), 'not json'];

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    db = await TestDatabase.create('payout');
    env = loadEnv({ ...process.env, ...db.env, ...nats.env, PAYOUT_DB_POOL_SIZE: '4' });
    const ds = await createDataSource(env).initialize();
    await runMigrations(ds);
    await ds.destroy();
    rpc = await TestRpcClient.connect(nats.url);
    jsm = await jetstreamManager(rpc.nc);
    await jsm.streams.add({ name: MEV_CAPTURE_STREAM, subjects: [MEV_CAPTURE_SUBJECTS] });
    await publish(...firstBatch);
    app = await createPayoutService(env, logger);
  });
  afterAll(async () => {
    await app?.close();
    await rpc?.close();
    await nats?.dispose();
    await db?.drop();
  });

  it('keeps the first-seen amount when one event id comes several times in one batch', async () => {
    await eventually('the first batch handled', drained);
    expect(await amountsOf(same)).toEqual(['1.5']);
    // The invalid one was dead-lettered and ended (a plain term: 2.9.10 ignores `+TERM <reason>`).
    expect((await jsm.consumers.info(MEV_CAPTURE_STREAM, CONSUMER_NAME)).num_redelivered).toBe(0);
  });

  it('keeps it across batches too', async () => {
    await publish(event({ id: same, amount: '100' }));
    await eventually('the later event handled', drained);
    expect(await amountsOf(same)).toEqual(['1.5']);
  });

  describe('audit of operators paying out other tenants’ cashback', () => {
    const owner = randomUUID();
    const operator: PayoutViewer = { tenantId: randomUUID(), admin: true, keyId: randomUUID() };
    const address = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const claim = (viewer: PayoutViewer, source: string) =>
      rpc.request<{ json: string }>(PAYOUT_REQUEST, { viewer, id: source, body: { address: address.toLowerCase(), chainId: 1, asset: 'ETH' } });
    const record = (source: string, amount: string) => rpc.request(PAYOUT_ENTRY_RECORD, { viewer: operator, body: event({ sourceId: source, amount }) });
    const auditOf = (source: string) => db.query(`SELECT * FROM payout.admin_audit WHERE source_id = $1`, [source]);

    it('records who paid whose cashback where, in a table and a log line', async () => {
      const source = `audited-${randomBytes(4).toString('hex')}`;
      await rpc.request(PAYOUT_SOURCE_REGISTER, { id: source, tenantId: owner });
      await record(source, '0.25');
      await record(source, '0.000000000000000001');
      const payout = JSON.parse((await claim(operator, source)).json) as { id: string };
      const rows = await auditOf(source);
      expect(rows).toEqual([
        expect.objectContaining({
          key_id: operator.keyId,
          tenant_id: operator.tenantId,
          action: 'payout.request',
          source_id: source,
          source_tenant_id: owner,
          payout_id: payout.id,
          address,
          chain_id: 1,
          asset: 'ETH',
          amount: '0.250000000000000001',
        }),
      ]);
      expect(Date.now() - new Date(rows[0]!.at).getTime()).toBeLessThan(60_000);
      expect(logger.warnings).toContainEqual(
        `admin audit: key ${operator.keyId} of tenant ${operator.tenantId} requested payout ${payout.id} of source ${source} (tenant ${owner}): 0.250000000000000001 ETH on chain 1 to ${address}`,
      );
    });

    it('audits an unregistered source’s payout too, and not a tenant’s claim on its own source', async () => {
      const orphan = `orphan-${randomBytes(4).toString('hex')}`;
      await record(orphan, '1');
      await claim(operator, orphan);
      expect(await auditOf(orphan)).toEqual([expect.objectContaining({ source_tenant_id: null, amount: '1' })]);

      const own = `own-${randomBytes(4).toString('hex')}`;
      await rpc.request(PAYOUT_SOURCE_REGISTER, { id: own, tenantId: owner });
      await record(own, '1');
      await claim({ tenantId: owner, admin: false, keyId: randomUUID() }, own);
      await record(own, '2');
      // An operator key of the source's own tenant is its owner acting, not an audit case.
      await claim({ tenantId: owner, admin: true, keyId: randomUUID() }, own);
      expect(await auditOf(own)).toEqual([]);
    });

    it('writes nothing when the claim fails', async () => {
      const empty = `empty-${randomBytes(4).toString('hex')}`;
      await rpc.request(PAYOUT_SOURCE_REGISTER, { id: empty, tenantId: owner });
      await record(empty, '1');
      await claim(operator, empty);
      await expect(claim(operator, empty)).rejects.toMatchObject({ name: 'Conflict' });
      expect(await auditOf(empty)).toHaveLength(1);
    });
  });

  it('claims of one balance take turns: one that comes while another holds the entries waits, then takes what the first left', async () => {
    const viewer: PayoutViewer = { tenantId: randomUUID(), admin: true, keyId: randomUUID() };
    const source = `turns-${randomBytes(4).toString('hex')}`;
    for (const amount of ['1', '2', '3']) await rpc.request(PAYOUT_ENTRY_RECORD, { viewer, body: event({ sourceId: source, amount }) });
    const ds = await createDataSource(env).initialize();
    const ledger = new LedgerRepository(ds);
    const [first, second] = [ds.createQueryRunner(), ds.createQueryRunner()];
    const of = (payoutId: string) => ({ payoutId, sourceId: source, chainId: 1, asset: 'ETH' });
    try {
      await first.startTransaction();
      expect(await ledger.claimEntries(first.manager, of(randomUUID()))).toMatchObject({ n: 3, total: '6' });
      await second.startTransaction();
      const later = randomUUID();
      const claiming = ledger.claimEntries(second.manager, of(later));
      // It waits for the first claim's transaction (skipping the rows the first holds, it would find nothing at once).
      await eventually(
        'the second claim waiting for the first',
        async () => (await db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).length > 0,
      );
      // The first gives up (a total below the minimum, say): the second takes every entry, not none.
      await first.rollbackTransaction();
      expect(await claiming).toMatchObject({ n: 3, total: '6' });
      await second.commitTransaction();
      expect(await db.query(`SELECT count(*)::int AS n FROM payout.entries WHERE source_id = $1 AND claimed_by = $2`, [source, later])).toEqual([{ n: 3 }]);
    } finally {
      await first.release();
      await second.release();
      await ds.destroy();
    }
  });
});
