import { randomUUID } from 'node:crypto';
import type { IntentRecord } from '@tradeinfra/contracts';
import type { TestDatabase } from '@tradeinfra/test-support';
import type { DataSource } from 'typeorm';
import { ExecutionRepository } from '../execution/execution.repository.js';
import { IntentsRepository } from '../intents/intents.repository.js';
import { LaunchesRepository } from '../launch/launches.repository.js';
import { PendingLaunchesRepository } from '../launch/pending/pending-launches.repository.js';
import { migratedDatabase } from './harness.js';

/**
 * The launch an intent was acted on at, as the database keeps and renders it: the record's
 * `launch`, the buys still behind a pending launch, and intents sent back to waiting when the
 * launch is dropped.
 */
describe('launch stamps on intents (ExecutionRepository, IntentsRepository, record_json)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let repo: ExecutionRepository;
  let intents: IntentsRepository;
  const CHAIN = 31337;
  const TOKEN = '0x00000000000000000000000000000000000000Aa';
  const LAUNCH = `0x${'1'.repeat(64)}`;
  const RAW = '0x02f8launch';

  beforeAll(async () => {
    ({ db, ds } = await migratedDatabase());
    repo = new ExecutionRepository(ds);
    intents = new IntentsRepository(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    await ds.query('DELETE FROM intent.outbox');
    await ds.query('DELETE FROM intent.intents');
    await ds.query('DELETE FROM intent.launches');
    await ds.query('DELETE FROM intent.pending_launches');
  });

  /** An intent whose buy was sent behind `launchTx` (kind `type`), or one in `status`. */
  async function sentIntent(
    over: { status?: string; type?: string; launchTx?: string | null; targetBlock?: number; txHash?: string; launchFrom?: [string, number] } = {},
  ): Promise<string> {
    const [{ id }] = (await ds.query(
      `INSERT INTO intent.intents (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at,
         phase, tx_hash, signed_tx, tx_nonce, target_block, submitted_at, status_data, launch_type, launch_tx_hash, launch_sender, launch_nonce)
       VALUES (intent.uuid_v7(), gen_random_uuid(), $1, $2, '0x00000000000000000000000000000000000000b0', $3, 7, 1, now() + interval '1 hour',
         CASE WHEN $1 = 'pending' THEN 'submitted' END, $4, '0xsigned', 3, $7, now(), jsonb_build_object('txHash', $4::text), $5, $6, $8, $9)
       RETURNING id`,
      [
        over.status ?? 'pending',
        CHAIN,
        TOKEN,
        over.txHash ?? `0x${'b'.repeat(64)}`,
        over.type ?? 'public_transaction',
        over.launchTx === undefined ? LAUNCH : over.launchTx,
        over.targetBlock ?? 10,
        over.launchFrom?.[0] ?? null,
        over.launchFrom?.[1] ?? null,
      ],
    )) as { id: string }[];
    return id;
  }
  const record = async (id: string) =>
    ((await ds.query('SELECT intent.record_json(x) AS r FROM intent.intents x WHERE id = $1', [id])) as { r: IntentRecord }[])[0]!.r;
  const pendingLaunch = () =>
    ds.query(
      `INSERT INTO intent.pending_launches (chain_id, token, pair, tx_hash, raw, sender, nonce, token_reserve, native_reserve, state_after, head_block)
       VALUES ($1, $2, '0xpair', $3, $4, '0xsender', 0, 1, 1, '{}', 9)`,
      [CHAIN, TOKEN.toLowerCase(), LAUNCH, RAW],
    );
  const minedLaunch = (txHash: string | null, block = 11) =>
    ds.query(
      `INSERT INTO intent.launches (chain_id, token, pair, block_number, block_hash, tx_hash, seen_pending) VALUES ($1, $2, '0xpair', $3, '0xhash', $4, $5)`,
      [CHAIN, TOKEN.toLowerCase(), block, txHash, txHash === LAUNCH],
    );

  it('renders the launch: its kind and transaction, and its block once recorded (null while pending, or when another transaction launched)', async () => {
    const id = await sentIntent();
    expect((await record(id)).launch).toEqual({ type: 'public_transaction', txHash: LAUNCH, blockNumber: null, launchTxHash: LAUNCH });
    await minedLaunch(LAUNCH, 11);
    expect((await record(id)).launch).toEqual({ type: 'public_transaction', txHash: LAUNCH, blockNumber: 11, launchTxHash: LAUNCH });
    await ds.query('DELETE FROM intent.launches');
    await minedLaunch(`0x${'2'.repeat(64)}`, 12);
    expect((await record(id)).launch).toEqual({ type: 'public_transaction', txHash: LAUNCH, blockNumber: null, launchTxHash: LAUNCH });
    // A pair found already liquid: no transaction known, the recorded block stands.
    const old = await sentIntent({ type: 'block', launchTx: null });
    expect((await record(old)).launch).toEqual({ type: 'block', txHash: null, blockNumber: 12, launchTxHash: null });
  });

  it('names the launch a buy was sent behind while that launch is pending, and no longer once its block is recorded', async () => {
    const id = await sentIntent();
    expect((await repo.submitted(CHAIN)).find((s) => s.id === id)!.behind).toBeNull(); // no pending launch stored
    await pendingLaunch();
    expect((await repo.submitted(CHAIN)).find((s) => s.id === id)!.behind).toBe(RAW);
    await minedLaunch(LAUNCH);
    expect((await repo.submitted(CHAIN)).find((s) => s.id === id)!.behind).toBeNull();
  });

  it("gives a buy sent behind a pending launch that launch's block once mined, and none to a buy of a later round or of another launch", async () => {
    const behind = await sentIntent({ targetBlock: 10 });
    const later = await sentIntent({ targetBlock: 13 });
    const other = await sentIntent({ targetBlock: 10, launchTx: `0x${'3'.repeat(64)}` });
    const launchBlock = async (id: string) => (await repo.submitted(CHAIN)).find((s) => s.id === id)!.launchBlock;
    expect(await launchBlock(behind)).toBeNull(); // still pending
    await minedLaunch(LAUNCH, 12);
    expect([await launchBlock(behind), await launchBlock(later), await launchBlock(other)]).toEqual([12n, null, null]);
  });

  it('names the pending launch a buy went out behind, with its sender and nonce, whatever became of that launch', async () => {
    const behind = await sentIntent({ launchFrom: ['0xdeployer', 41] });
    const atBlock = await sentIntent({ type: 'block' });
    const sentBehind = async (id: string) => (await repo.submitted(CHAIN)).find((s) => s.id === id)!.sentBehind;
    expect(await sentBehind(behind)).toEqual({ txHash: LAUNCH, sender: '0xdeployer', nonce: 41n });
    expect(await sentBehind(atBlock)).toBeNull();
    await pendingLaunch();
    await ds.query('DELETE FROM intent.pending_launches');
    expect(await sentBehind(behind)).toEqual({ txHash: LAUNCH, sender: '0xdeployer', nonce: 41n });
  });

  it('sends intents whose launch never happened back to waiting, each with a waiting event, and only while the row holds that buy', async () => {
    const buy = `0x${'c'.repeat(64)}`;
    const behind = await sentIntent({ launchFrom: ['0xdeployer', 41], txHash: buy });
    const other = await sentIntent({ launchFrom: ['0xdeployer', 41] });
    const done = await sentIntent({ status: 'completed' });
    const item = (id: string, txHash: string) => ({ id, txHash, reason: 'launch_replaced' as const, launchTxHash: LAUNCH });
    // Another buy's hash (the row moved on since it was read): nothing changes.
    expect(await intents.waitAgain([item(behind, `0x${'d'.repeat(64)}`), item(done, `0x${'b'.repeat(64)}`)])).toBe(0);
    expect(await intents.waitAgain([item(behind, buy)])).toBe(1);
    expect(await record(behind)).toMatchObject({
      status: 'pending',
      txHash: null,
      statusReason: 'launch_replaced',
      statusData: { txHash: buy, launchTxHash: LAUNCH },
      launch: null,
    });
    const [row] = (await ds.query('SELECT phase, signed_tx, tx_nonce, target_block, launch_sender, launch_nonce FROM intent.intents WHERE id = $1', [
      behind,
    ])) as Record<string, unknown>[];
    expect(row).toEqual({ phase: null, signed_tx: null, tx_nonce: null, target_block: null, launch_sender: null, launch_nonce: null });
    const events = (await ds.query('SELECT type, intent FROM intent.outbox')) as { type: string; intent: IntentRecord }[];
    expect(events).toEqual([{ type: 'waiting', intent: expect.objectContaining({ id: behind, status: 'pending', statusReason: 'launch_replaced' }) }]);
    expect((await record(other)).launch).toMatchObject({ txHash: LAUNCH });
    expect((await record(done)).status).toBe('completed');
    // Again: already waiting.
    expect(await intents.waitAgain([item(behind, buy)])).toBe(0);
  });

  it('records an outcome with its launch’s block, so the record never reads completed without it, whatever intent.launches holds', async () => {
    const id = await sentIntent({ launchFrom: ['0xdeployer', 41] });
    const outcome = { id, status: 'completed' as const, reason: null, executedAt: new Date(), data: { txHash: `0x${'b'.repeat(64)}` } };
    expect(await intents.recordOutcomes([{ ...outcome, launch: { txHash: LAUNCH, block: 12n } }])).toBe(1);
    expect(await record(id)).toMatchObject({ status: 'completed', launch: { type: 'public_transaction', txHash: LAUNCH, blockNumber: 12 } });
    // The block watcher records the launch later (or a reorg takes it away): the record keeps its block.
    await minedLaunch(LAUNCH, 12);
    await ds.query('DELETE FROM intent.launches');
    expect((await record(id)).launch).toMatchObject({ type: 'public_transaction', txHash: LAUNCH, blockNumber: 12 });
    // The token launched by another transaction than the one the buy followed: the record names that one.
    const other = await sentIntent({ launchFrom: ['0xdeployer', 41] });
    await intents.recordOutcomes([{ ...outcome, id: other, launch: { txHash: `0x${'2'.repeat(64)}`, block: 13n } }]);
    expect((await record(other)).launch).toMatchObject({ type: 'public_transaction', txHash: `0x${'2'.repeat(64)}`, blockNumber: 13 });
    // A buy still out, whose row has no launch block: the follower is given the token's recorded launch to record it with.
    const out = await sentIntent({ launchFrom: ['0xdeployer', 41] });
    await minedLaunch(`0x${'3'.repeat(64)}`, 14);
    expect((await repo.submitted(CHAIN)).find((s) => s.id === out)).toMatchObject({
      launchStamped: false,
      tokenLaunch: { txHash: `0x${'3'.repeat(64)}`, block: 14n },
    });
  });

  it('hands a claim made for a launch its round did not find back untouched, and only that claim', async () => {
    const waiting = async () =>
      (
        (await ds.query(
          `INSERT INTO intent.intents (id, tenant_id, status, status_reason, chain_id, wallet, token_address, bribe, buy_amount, expires_at)
         VALUES (intent.uuid_v7(), gen_random_uuid(), 'pending', 'chain_unreachable', $1, '0x00000000000000000000000000000000000000b0', $2, 7, 1, now() + interval '1 hour')
         RETURNING id`,
          [CHAIN, TOKEN],
        )) as { id: string }[]
      )[0]!.id;
    const [a, b] = [await waiting(), await waiting()];
    const [early, other, next] = [randomUUID(), randomUUID(), randomUUID()];
    const claimed = await intents.claim(CHAIN, TOKEN, early, 10);
    expect(claimed.map((i) => i.id).sort()).toEqual([a, b].sort());
    await intents.handBack(other, [a, b]); // not its claim: nothing changes
    expect((await ds.query('SELECT DISTINCT claim_token FROM intent.intents')) as unknown[]).toEqual([{ claim_token: early }]);
    expect(await intents.claim(CHAIN, TOKEN, next, 10)).toHaveLength(2); // a claimed intent is claimable again (only the lock holder claims)
    await intents.handBack(next, [a]);
    const rows = (await ds.query('SELECT id, phase, claim_token, status_reason FROM intent.intents ORDER BY id')) as Record<string, unknown>[];
    expect(rows.find((r) => r.id === a)).toEqual({ id: a, phase: null, claim_token: null, status_reason: 'chain_unreachable' });
    expect(rows.find((r) => r.id === b)).toMatchObject({ phase: 'claimed', claim_token: next });
  });

  it('counts what it removes: a pending launch forgotten once, launches undone by a reorg by token', async () => {
    const pending = new PendingLaunchesRepository(ds);
    await pendingLaunch();
    expect(await pending.remove(CHAIN, LAUNCH)).toBe(1);
    expect(await pending.remove(CHAIN, LAUNCH)).toBe(0);
    await minedLaunch(LAUNCH, 11);
    const launches = new LaunchesRepository(ds);
    expect(await launches.withChain(CHAIN, [] as string[], (l) => l.forgetAfter(11n))).toEqual([]);
    expect(await launches.withChain(CHAIN, [] as string[], (l) => l.forgetAfter(10n))).toEqual([TOKEN.toLowerCase()]);
  });
});
