import { merkleIntentError, type IntentRecord } from '@tradeinfra/contracts';
import type { DataSource } from 'typeorm';
import type { TestDatabase } from '@tradeinfra/test-support';
import { runMigrations } from '../database/data-source.js';
import { TokensRepository } from '../tokens/tokens.repository.js';
import { migratedDatabase } from './harness.js';

/** Merkle's fields of the intent record as the database renders them (migration MerkleDropIn). */
describe('Merkle’s fields on the intent record', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const TOKEN = '0x00000000000000000000000000000000000000Aa';

  beforeAll(async () => {
    ({ db, ds } = await migratedDatabase());
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const insert = async (status: string, statusReason: string | null, extra = '') =>
    (
      (await ds.query(
        `INSERT INTO intent.intents AS x (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at, status_reason, min_in${extra ? ', launch_type, launch_tx_hash' : ''})
         VALUES (intent.uuid_v7(), gen_random_uuid(), $1, 1, '0x0000000000000000000000000000000000000001', $3, 0, 1, now() + interval '1 hour', $2, 7${extra})
         RETURNING intent.record_json(x) AS record`,
        [status, statusReason, TOKEN],
      )) as { record: IntentRecord }[]
    )[0]!.record;

  it.each([
    ['failed', 'insufficient_funds'],
    ['failed', 'allowance_too_low'],
    ['failed', 'not_included'],
    ['failed', 'buy_tax_too_high'],
    ['failed', 'signature_invalid'],
    ['error', 'outcome_unknown'],
    ['pending', 'chain_unreachable'],
    ['pending', 'execution_unavailable'],
    ['expired', 'execution_unavailable'],
    ['pending', null],
    ['completed', null],
    ['completed', 'execution_unavailable'],
    ['cancelled', 'cancelled by the client'],
    ['expired', 'expiry reached before launch'],
  ])('error of a %s intent with statusReason %s is the contracts’ merkleIntentError', async (status, reason) => {
    const record = await insert(status, reason);
    expect(record.error).toBe(merkleIntentError(status, reason));
  });

  it('renders createdAtMs, minBuy, launch.launchTxHash, and token with the deployer facts once known', async () => {
    const launchTx = `0x${'7f'.repeat(32)}`;
    const before = await insert('pending', null, `, 'public_transaction', '${launchTx}'`);
    expect(before.createdAtMs).toBe(Date.parse(before.createdAt));
    expect(before.minBuy).toBe('7');
    expect(before.launch).toEqual({ type: 'public_transaction', txHash: launchTx, blockNumber: null, launchTxHash: launchTx });
    expect(before.token).toEqual({ chainId: 1, address: TOKEN, deployer: null, deployerHash: null, deployerBlocknumber: null, deployerTimestamp: null });

    await new TokensRepository(ds).record(
      1,
      TOKEN,
      { deployer: '0x00000000000000000000000000000000000000De', txHash: `0x${'5e'.repeat(32)}`, blockNumber: 120n, timestamp: 1795460000n },
      true,
    );
    const [{ record }] = (await ds.query(`SELECT intent.record_json(x) AS record FROM intent.intents x WHERE x.id = $1`, [before.id])) as {
      record: IntentRecord;
    }[];
    expect(record.token).toEqual({
      chainId: 1,
      address: TOKEN,
      deployer: '0x00000000000000000000000000000000000000De',
      deployerHash: `0x${'5e'.repeat(32)}`,
      deployerBlocknumber: 120,
      deployerTimestamp: 1795460000,
    });
  });

  it('looks a token up again after its intents left pending when its first lookup failed, until its facts are found', async () => {
    const token = '0x00000000000000000000000000000000000000b0';
    const tokens = new TokensRepository(ds);
    const due = async () => (await tokens.due([1], 100)).filter((d) => d.token === token);
    const [{ id }] = (await ds.query(
      `INSERT INTO intent.intents (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at)
       VALUES (intent.uuid_v7(), gen_random_uuid(), 'pending', 1, '0x0000000000000000000000000000000000000001', $1, 0, 1, now() + interval '1 hour')
       RETURNING id`,
      [token],
    )) as { id: string }[];
    expect(await due()).toEqual([{ chainId: 1, token, attempts: 0 }]);

    // The first lookup fails (a node error); the buy completes before the next one is due.
    await tokens.record(1, token, null, false);
    await ds.query(`UPDATE intent.intents SET status = 'completed' WHERE id = $1`, [id]);
    expect(await due()).toEqual([]); // not before 2^1 s
    await ds.query(`UPDATE intent.tokens SET looked_up_at = now() - interval '1 minute' WHERE token = $1`, [token]);
    expect(await due()).toEqual([{ chainId: 1, token, attempts: 1 }]);

    // Found: never again.
    await tokens.record(
      1,
      token,
      { deployer: '0x00000000000000000000000000000000000000De', txHash: `0x${'5e'.repeat(32)}`, blockNumber: 3n, timestamp: 1795460000n },
      true,
    );
    await ds.query(`UPDATE intent.tokens SET looked_up_at = now() - interval '1 hour' WHERE token = $1`, [token]);
    expect(await due()).toEqual([]);
  });

  it('keeps our signing protocol for intents stored before it, and reverts and re-applies cleanly', async () => {
    // Back to before MerkleDropIn, whatever came after it.
    const since = ds.migrations.length - ds.migrations.findIndex((m) => m.constructor.name === 'MerkleDropIn1765200000000');
    expect(since).toBeLessThanOrEqual(ds.migrations.length);
    for (let i = 0; i < since; i++) await ds.undoLastMigration();
    const [{ id }] = (await ds.query(
      `INSERT INTO intent.intents (id, tenant_id, status, chain_id, wallet, token_address, bribe, buy_amount, expires_at, webhook_url)
       VALUES (intent.uuid_v7(), gen_random_uuid(), 'pending', 1, '0x0000000000000000000000000000000000000001', $1, 0, 1, now() + interval '1 hour', 'https://signer.example/sign')
       RETURNING id`,
      [TOKEN],
    )) as { id: string }[];
    await runMigrations(ds);
    const [{ record }] = (await ds.query(`SELECT intent.record_json(x) AS record FROM intent.intents x WHERE x.id = $1`, [id])) as { record: IntentRecord }[];
    expect(record.webhookProtocol).toBe('tradeinfra');
    const created = await insert('pending', null);
    expect(created.webhookProtocol).toBeNull(); // no webhook
  });
});
