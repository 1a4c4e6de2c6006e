import { randomBytes, randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { mevCaptureSubject } from '@tradeinfra/contracts';
import { eventually, HardhatNode, LocalDex } from '@tradeinfra/test-support';
import { Wallet } from 'ethers';
import { Stack } from './harness.js';

/**
 * Merkle's cashback routes (docs.merkle.io, "User Cashback" implementation guide), sent exactly
 * as documented (`Authorization: Token <key>`): the source's `balances: [{asset, amount}]` and
 * `estimatedUsd` (the native coin priced from the chain's stable pair through the simulation
 * service), and a payout request with just `{address, email?}`.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;

describe('cashback, as Merkle documents it', () => {
  let node: HardhatNode;
  let stack: Stack;
  let nc: NatsConnection;
  let admin: string;

  /** A request with Merkle's header: `Authorization: Token <key>`. */
  const merkle = (method: string, path: string, key: string, body?: unknown) =>
    stack.request(method, path, { headers: { authorization: `Token ${key}` }, body });

  async function sourceWith(events: { asset: string; amount: string }[]): Promise<{ source: string; key: string }> {
    const tenant = `tenant-${randomUUID()}`;
    const key = await stack.createKey({ tenant });
    const source = `src-${randomBytes(4).toString('hex')}`;
    expect((await stack.request('POST', '/v1/sources', { key: admin, body: { id: source, tenant } })).status).toBe(201);
    const js = jetstream(nc);
    for (const e of events) {
      const event = {
        id: randomUUID(),
        chainId: CHAIN_ID,
        txHash: `0x${randomBytes(32).toString('hex')}`,
        sourceId: source,
        type: 'mev',
        time: new Date().toISOString(),
        ...e,
      };
      await js.publish(mevCaptureSubject(CHAIN_ID), JSON.stringify(event));
    }
    await eventually('entries ingested', async () => {
      const rows = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payout.entries WHERE source_id = $1', [source]);
      return rows[0]!.n === events.length;
    });
    return { source, key };
  }

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    const dex = await LocalDex.deploy(node);
    // A USD/WETH pool pricing ETH at exactly $3,000 (the USD token has 18 decimals).
    const usd = await dex.deployToken('PlainToken', [10n ** 27n]);
    await dex.launch(usd, 30_000n * ETH, 10n * ETH);
    stack = await Stack.start({
      CHAIN_IDS: String(CHAIN_ID),
      RPC_URL_31337: node.url,
      HARDFORK_31337: 'prague',
      PAYOUT_CHAIN_IDS: String(CHAIN_ID),
      PAYOUT_ASSETS: 'ETH:18,USDC:6,DOGE:8',
      STABLE_PAIR_31337: await dex.pairOf(usd),
      WRAPPED_NATIVE_31337: dex.weth,
    });
    nc = await connect({ servers: stack.nats.url });
    admin = await stack.createKey({ scopes: ['admin'] });
  }, 180_000);

  afterAll(async () => {
    await nc?.close();
    await stack?.close();
    await node?.stop();
  });

  it('GET /v1/cashback/source/:id: balances with asset and amount, estimatedUsd from live prices, unpriced assets named', async () => {
    const s = await sourceWith([
      { asset: 'ETH', amount: '0.25' },
      { asset: 'ETH', amount: '0.25' },
      { asset: 'USDC', amount: '20.5' },
      { asset: 'DOGE', amount: '100' },
    ]);
    const res = await merkle('GET', `/v1/cashback/source/${s.source}`, s.key);
    expect(res.status).toBe(200);
    // 0.5 ETH × $3,000 + 20.5 USDC; DOGE has no price source.
    expect(res.body.estimatedUsd).toBe(1520.5);
    expect(res.text).toMatch(/"estimatedUsd":1520\.5[,}]/);
    expect(res.body.unpricedAssets).toEqual(['DOGE']);
    expect(res.body.balances).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ asset: 'ETH', amount: 0.5, chainId: CHAIN_ID }),
        expect.objectContaining({ asset: 'USDC', amount: 20.5 }),
        expect.objectContaining({ asset: 'DOGE', amount: 100 }),
      ]),
    );
  });

  it('POST /v1/cashback/source/:id/payout with {address, email}: one payout per balance, in kind; then nothing is left', async () => {
    const s = await sourceWith([
      { asset: 'ETH', amount: '0.1' },
      { asset: 'USDC', amount: '5' },
    ]);
    const address = Wallet.createRandom().address;
    const res = await merkle('POST', `/v1/cashback/source/${s.source}/payout`, s.key, { address, email: 'someone@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.payouts).toHaveLength(2);
    expect(res.body.payouts.map((p: { asset: string; amount: number; status: string; address: string }) => [p.asset, p.amount, p.status, p.address])).toEqual([
      ['ETH', 0.1, 'PENDING', address],
      ['USDC', 5, 'PENDING', address],
    ]);
    expect(res.body.payouts[0].id).toBe(res.body.id);
    // The email is kept for operators, never shown in the record.
    const stored = await stack.db.query<{ email: string }>('SELECT email FROM payout.payouts WHERE source_id = $1', [s.source]);
    expect(stored.map((r) => r.email)).toEqual(['someone@example.com', 'someone@example.com']);
    expect(JSON.stringify(res.body)).not.toContain('someone@example.com');
    // GET /v1/cashback/payout/:id answers Merkle's {id, status, tx_hash}.
    const one = await merkle('GET', `/v1/cashback/payout/${res.body.id}`, s.key);
    expect(one.body).toMatchObject({ id: res.body.id, status: 'PENDING', tx_hash: null });
    // Everything is claimed now.
    const after = await merkle('GET', `/v1/cashback/source/${s.source}`, s.key);
    expect(after.body.estimatedUsd).toBe(0);
    const again = await merkle('POST', `/v1/cashback/source/${s.source}/payout`, s.key, { address });
    expect(again.status).toBe(409);
    expect(again.body.details).toMatchObject({ reason: 'nothing_to_pay' });
  });

  it('refuses half a (chainId, asset) pair, a bad email and a bad address', async () => {
    const s = await sourceWith([{ asset: 'ETH', amount: '0.1' }]);
    const address = Wallet.createRandom().address;
    for (const [body, path] of [
      [{ address, chainId: CHAIN_ID }, 'asset'],
      [{ address, asset: 'ETH' }, 'chainId'],
      [{ address, email: 'not an email' }, 'email'],
      [{ address: '0x1234' }, 'address'],
    ] as const) {
      const res = await merkle('POST', `/v1/cashback/source/${s.source}/payout`, s.key, body);
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    expect(await stack.db.query('SELECT 1 FROM payout.payouts WHERE source_id = $1', [s.source])).toHaveLength(0);
  });
});
