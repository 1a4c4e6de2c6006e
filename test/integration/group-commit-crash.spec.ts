import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { INTENT_CREATE, type CreateIntentReply } from '@tradeinfra/contracts';
import { eventually, TestDatabase, TestNatsServer, TestRpcClient } from '@tradeinfra/test-support';
import type pg from 'pg';
import { loadEnv } from '../../apps/intent-service/src/config/env.js';
import { createDataSource, runMigrations } from '../../apps/intent-service/src/database/data-source.js';
import { intentBody } from '../e2e/harness.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The intent service (its built process) killed while a group of creates is being written: every
 * create it acknowledged is stored, and the group it had not committed was answered to nobody.
 */
describe('group commit: the intent service killed with a group in flight', () => {
  let db: TestDatabase;
  let nats: TestNatsServer;
  let rpc: TestRpcClient;
  let service: ChildProcess | null = null;
  let output = '';
  const holders: pg.Client[] = [];
  const tenantId = randomUUID();

  beforeAll(async () => {
    db = await TestDatabase.create('crash');
    nats = await TestNatsServer.start();
    const env = loadEnv({ ...process.env, ...db.env });
    const ds = await createDataSource(env).initialize();
    await runMigrations(ds);
    await ds.destroy();
    service = spawn(process.execPath, [join(ROOT, 'apps/intent-service/dist/main.js')], {
      cwd: ROOT,
      env: { ...process.env, ...db.env, NATS_URL: nats.url, INTENT_DB_POOL_SIZE: '4', HEALTH_PORT: '0', LOG_FORMAT: 'json', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    service.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await eventually(`the intent service listening (output: ${output})`, () => /listening on/.test(output), 60_000, 100);
    rpc = await TestRpcClient.connect(nats.url);
  });

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    for (const h of holders) await h.end().catch(() => undefined);
    await rpc?.close().catch(() => undefined);
    await nats?.dispose();
    await db?.drop();
  });

  const create = (buyAmount: string, key: string | null = null) =>
    rpc.request<CreateIntentReply>(INTENT_CREATE, { tenantId, idempotencyKey: key, body: intentBody({ buyAmount }) }, 4_000).then(
      (reply) => ({ ok: true as const, id: reply.intent.id }),
      (err: Error) => ({ ok: false as const, error: err.message }),
    );

  /** Takes `key` in a transaction left open; creates claiming it wait for it. */
  const hold = async (key: string) => {
    const client = await db.admin();
    holders.push(client);
    await client.query('BEGIN');
    await client.query(`INSERT INTO intent.idempotency_keys (tenant_id, key, request_hash, intent_id) VALUES ($1, $2, 'held', $3)`, [
      tenantId,
      key,
      randomUUID(),
    ]);
    return client;
  };
  const lockWaiters = async (sqlLike: string) =>
    Number(
      (
        await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
          [sqlLike],
        )
      )[0]!.n,
    );

  it('stores every acknowledged create; the group killed before its commit is neither stored nor answered', async () => {
    // Answered before the crash, grouped or not.
    const before = await Promise.all(Array.from({ length: 20 }, (_, i) => create(String(1000 + i))));
    expect(before.every((a) => a.ok)).toBe(true);

    // Two creates wait for key A (both statements the service runs at once); six queue behind
    // them and, once A is released, go as one group, which then waits for key B.
    const a = await hold('A');
    const b = await hold('B');
    const first = [create('1', 'A'), create('1', 'A')];
    await eventually('two creates waiting for key A', async () => (await lockWaiters('%')) === 2);
    const group = [...Array.from({ length: 5 }, (_, i) => create(String(2000 + i))), create('3', 'B')];
    // A's two are answered: both in the same intent, one replaying it.
    await a.query('ROLLBACK');
    const firstAnswers = await Promise.all(first);
    expect(firstAnswers.every((x) => x.ok)).toBe(true);
    await eventually('the group waiting for key B', async () => (await lockWaiters('%unnest%')) === 1);

    service!.kill('SIGKILL');
    await new Promise((resolve) => (service!.exitCode !== null ? resolve(null) : service!.once('exit', resolve)));
    // Its connection's transaction is rolled back once Postgres notices it is gone; make it so now.
    await db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%unnest%' AND pid <> pg_backend_pid()`,
    );
    await b.query('ROLLBACK');

    const groupAnswers = await Promise.all(group);
    // The create with key B was in the group statement the kill cut short: never answered. (On a
    // loaded machine a plain create may reach the service only after A's two were answered and
    // go alone; it is then answered, and must be stored, like any acknowledged create.)
    expect(groupAnswers.at(-1)!.ok).toBe(false);
    const lateAlone = groupAnswers.filter((x) => x.ok);

    const acknowledged = [...before, ...firstAnswers, ...lateAlone].flatMap((x) => (x.ok ? [x.id] : []));
    const stored = await db.query<{ id: string; events: string }>(
      `SELECT x.id, (SELECT count(*) FROM intent.outbox o WHERE o.intent->>'id' = x.id::text AND o.type = 'created') AS events
       FROM intent.intents x WHERE x.tenant_id = $1`,
      [tenantId],
    );
    // 20 + A's one intent (+ any plain create that went alone), each once with its event; nothing else of the group.
    expect(stored.map((r) => r.id).sort()).toEqual([...new Set(acknowledged)].sort());
    expect(stored).toHaveLength(21 + lateAlone.length);
    expect(lateAlone.length).toBeLessThan(5);
    expect(stored.every((r) => r.events === '1')).toBe(true);
  });
});
