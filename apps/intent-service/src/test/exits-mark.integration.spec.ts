import { FailureReason } from '@tradeinfra/contracts';
import type { TestDatabase } from '@tradeinfra/test-support';
import type { DataSource } from 'typeorm';
import { ExitsRepository, type FiredExit } from '../exits/exits.repository.js';
import { migratedDatabase } from './harness.js';

/**
 * The exit watcher's at-most-once guard on real Postgres: marking signed sells submitted is the
 * only claim an exit round makes, so of two rounds marking one exit at once exactly one gets it
 * (and only it sends); the signed approve is stored with the sell for a later resend.
 */
describe('exit sells marked submitted (ExitsRepository)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let repo: ExitsRepository;
  const CHAIN = 31337;

  beforeAll(async () => {
    ({ db, ds } = await migratedDatabase());
    repo = new ExitsRepository(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    await ds.query('DELETE FROM intent.outbox');
    await ds.query('DELETE FROM intent.intents');
  });

  async function waitingExit(): Promise<string> {
    const [{ id }] = (await ds.query(
      `INSERT INTO intent.intents (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at, is_exit, on_rug)
       VALUES (intent.uuid_v7(), gen_random_uuid(), 'pending', $1, '0x00000000000000000000000000000000000000b0',
         '0x00000000000000000000000000000000000000aa', 0, 0, now() + interval '1 hour', true, true)
       RETURNING id`,
      [CHAIN],
    )) as { id: string }[];
    return id;
  }

  const fired = (id: string, n: number): FiredExit => ({
    id,
    raw: `0x02sell${n}`,
    hash: `0x${String(n).repeat(64)}`,
    approveRaw: `0x02approve${n}`,
    nonce: 7n,
    trigger: 'on_rug',
    price: 1000n,
  });

  it('marks an exit for one of two rounds racing for it, with one tx_pending event', async () => {
    const id = await waitingExit();
    const [a, b] = await Promise.all([repo.markSubmitted([fired(id, 1)], 11n), repo.markSubmitted([fired(id, 2)], 11n)]);
    expect(a.size + b.size).toBe(1);
    const winner = a.has(id) ? 1 : 2;
    const [row] = (await ds.query('SELECT phase, tx_hash, signed_tx, signed_approve_tx FROM intent.intents WHERE id = $1', [id])) as Record<string, string>[];
    expect(row).toEqual({ phase: 'submitted', tx_hash: fired(id, winner).hash, signed_tx: `0x02sell${winner}`, signed_approve_tx: `0x02approve${winner}` });
    const events = (await ds.query(`SELECT count(*)::int AS n FROM intent.outbox WHERE type = 'tx_pending'`)) as { n: number }[];
    expect(events[0]!.n).toBe(1);
    // Marked again later (a rug after a price round): nothing.
    expect((await repo.markSubmitted([fired(id, 3)], 12n)).size).toBe(0);
  });

  it('gives the follow step the sell and its approve as stored, and a signer refusal leaves a sent exit alone', async () => {
    const id = await waitingExit();
    await repo.markSubmitted([fired(id, 4)], 11n);
    await repo.fail([{ id, reason: FailureReason.SignerRefused, data: { detail: 'late refusal' } }]);
    const [sent] = await repo.submitted(CHAIN);
    expect(sent).toMatchObject({ id, raw: '0x02sell4', approveRaw: '0x02approve4', nonce: 7n, targetBlock: 11n, trigger: 'on_rug' });
  });
});
