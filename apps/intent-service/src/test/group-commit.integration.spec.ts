import { INTENT_CREATE, type CreateIntentReply, type IntentRecord } from '@tradeinfra/contracts';
import { eventually } from '@tradeinfra/test-support';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { DataSource } from 'typeorm';
import { uuidv7 } from 'uuidv7';
import { createDataSource } from '../database/data-source.js';
import { CreateGroup } from '../intents/create-group.js';
import { IntentsRepository, type NewIntent } from '../intents/intents.repository.js';
import { startIntentService, type IntentServiceHarness } from './harness.js';

const WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TOKEN = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

function body(buyAmount: string) {
  return { chainId: 1, wallet: WALLET.toLowerCase(), tokenAddress: TOKEN, bribe: '1', buyAmount, expiry: Math.floor(Date.now() / 1000) + 3600 };
}

type Answer = { ok: true; reply: CreateIntentReply } | { ok: false; name: string; message: string };

/**
 * Group commit: creates that arrive while earlier ones are being written go to the database in
 * one statement. Held here deterministically: an uncommitted idempotency key makes the creates
 * claiming it wait in the database, so the creates sent behind them queue up and form a group.
 */
describe('intent service: concurrent creates written as a group', () => {
  let h: IntentServiceHarness;
  let ds: DataSource;
  let holder: pg.Client;
  let holderPid: number;
  const tenantId = randomUUID();

  const create = (b: unknown, key: string | null = null): Promise<Answer> =>
    h.rpc.request<CreateIntentReply>(INTENT_CREATE, { tenantId, idempotencyKey: key, body: b }).then(
      (reply) => ({ ok: true, reply }),
      (e: { name: string; message: string }) => ({ ok: false, name: e.name, message: e.message }),
    );

  /** Takes `key` for the tenant in a transaction left open: creates claiming it wait. */
  const hold = async (key: string) => {
    await holder.query('BEGIN');
    await holder.query(`INSERT INTO intent.idempotency_keys (tenant_id, key, request_hash, intent_id) VALUES ($1, $2, 'held', $3)`, [
      tenantId,
      key,
      randomUUID(),
    ]);
  };
  /** Waits until `n` statements of the service wait for a lock (the held key). */
  const waiting = (n: number) =>
    eventually(`${n} creates waiting for the held key`, async () => {
      const [{ count }] = await h.db.query<{ count: string }>(
        `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
        [holderPid],
      );
      return Number(count) >= n;
    });

  beforeAll(async () => {
    h = await startIntentService({ CHAIN_IDS: '1,56' });
    ds = await createDataSource({ ...h.env, INTENT_DB_POOL_SIZE: 6 }).initialize();
    holder = await h.db.admin();
    holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  });
  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await ds?.destroy();
    await h?.close();
  });

  it('gives each create of a group its own answer: fresh, replayed, conflicting key, invalid', async () => {
    const taken = await create(body('7'), 'taken');
    expect(taken.ok).toBe(true);

    await hold('held');
    const held = [create(body('1'), 'held'), create(body('1'), 'held')];
    await waiting(2);
    // Behind them: three plain creates, three claiming one key (two bodies), a key already
    // taken by another body, and a body the service refuses before it is stored.
    const plain = [create(body('10')), create(body('11')), create(body('12'))];
    const dup = [create(body('20'), 'dup'), create(body('20'), 'dup'), create(body('21'), 'dup')];
    const reused = create(body('8'), 'taken');
    const invalid = create({ ...body('9'), buyAmount: '-1' });
    expect(await invalid).toMatchObject({ ok: false, name: 'ValidationError' });
    await holder.query('ROLLBACK');

    const heldAnswers = await Promise.all(held);
    const plainAnswers = await Promise.all(plain);
    const dupAnswers = await Promise.all(dup);

    // The held key: one stored, the other replays it.
    const heldReplies = heldAnswers.map((a) => (a.ok ? a.reply : null));
    expect(heldReplies.map((r) => r?.replayed).sort()).toEqual([false, true]);
    expect(heldReplies[0]!.intent.id).toBe(heldReplies[1]!.intent.id);

    // Plain creates: each its own intent, all in one transaction (the same xmin).
    const plainIds = plainAnswers.map((a) => (a.ok && !a.reply.replayed ? a.reply.intent.id : null));
    expect(new Set(plainIds).size).toBe(3);
    expect(plainIds).not.toContain(null);
    expect(plainAnswers.map((a) => (a.ok ? a.reply.intent.buyAmount : null))).toEqual(['10', '11', '12']);
    const xmins = await h.db.query<{ n: string }>(`SELECT count(DISTINCT xmin::text) AS n FROM intent.intents WHERE id = ANY($1::uuid[])`, [plainIds]);
    expect(Number(xmins[0]!.n)).toBe(1);

    // One key, three creates in the group: the first stores; the same body replays it, another body conflicts.
    const winner = dupAnswers.find((a) => a.ok && !a.reply.replayed);
    expect(winner).toBeDefined();
    const winnerIntent = (winner as { reply: CreateIntentReply }).reply.intent;
    for (const a of dupAnswers) {
      if (a === winner) continue;
      if (a.ok) {
        expect(a.reply).toMatchObject({ replayed: true, intent: { id: winnerIntent.id, buyAmount: winnerIntent.buyAmount } });
      } else {
        expect(a.name).toBe('Conflict');
      }
    }
    expect(dupAnswers.filter((a) => !a.ok)).toHaveLength(winnerIntent.buyAmount === '20' ? 1 : 2);
    expect(await reused).toMatchObject({ ok: false, name: 'Conflict' });

    // Exactly the intents answered as new are stored, each with one `created` event.
    const stored = await h.db.query<{ id: string; events: string }>(
      `SELECT x.id, (SELECT count(*) FROM intent.outbox o WHERE o.intent->>'id' = x.id::text AND o.type = 'created') AS events
       FROM intent.intents x WHERE x.tenant_id = $1`,
      [tenantId],
    );
    const fresh = [taken, ...heldAnswers, ...plainAnswers, ...dupAnswers].flatMap((a) => (a.ok && !a.reply.replayed ? [a.reply.intent.id] : []));
    expect(stored.map((r) => r.id).sort()).toEqual([...fresh].sort());
    expect(stored.every((r) => r.events === '1')).toBe(true);
  });

  it('when the group statement fails, each create runs alone: only the bad one fails', async () => {
    const repository = new IntentsRepository(ds);
    let groups = 0;
    const group = new CreateGroup({
      create: (...args) => repository.create(...args),
      createGroup: (creates) => {
        groups++;
        return repository.createGroup(creates);
      },
    });
    const intent = (buyAmount: string, chainId = 1): NewIntent => ({
      ...body(buyAmount),
      chainId,
      maxBuyTax: null,
      maxSellTax: null,
      minIn: null,
      minOut: null,
      minLiquidity: null,
      feeBps: null,
      feeRecipient: null,
      firstOrFail: false,
      maxSlippageBps: null,
      gasTip: null,
      notificationWebhookUrl: null,
    });
    const settle = (p: Promise<IntentRecord | null>) =>
      p.then(
        (r) => ({ ok: true as const, record: r }),
        (e: Error) => ({ ok: false as const, message: e.message }),
      );
    await hold('held-2');
    const claim = { key: 'held-2', requestHash: 'h' };
    const held = [settle(group.create(tenantId, uuidv7(), intent('30'), claim)), settle(group.create(tenantId, uuidv7(), intent('30'), claim))];
    await waiting(2);
    // A chain id the column cannot hold fails the whole statement.
    const queued = [intent('31'), intent('32', 2 ** 40), intent('33')].map((i) => settle(group.create(tenantId, uuidv7(), i, null)));
    await holder.query('ROLLBACK');
    await Promise.all(held);
    const [a, bad, b] = await Promise.all(queued);
    expect(groups).toBe(1);
    expect(bad).toMatchObject({ ok: false, message: expect.stringMatching(/out of range/) });
    expect([a, b].map((r) => (r.ok ? r.record?.buyAmount : r.message))).toEqual(['31', '33']);
    const rows = await h.db.query<{ buy_amount: string }>(`SELECT buy_amount FROM intent.intents WHERE tenant_id = $1 AND buy_amount IN (31, 32, 33)`, [
      tenantId,
    ]);
    expect(rows.map((r) => r.buy_amount).sort()).toEqual(['31', '33']);
  });
});
