import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex } from '@tradeinfra/test-support';
import { Transaction } from 'ethers';
import { Stack } from './harness.js';
import { NotificationSink, SigningWebhook } from './execution-support.js';

/**
 * Intents executed on a local chain: a hardhat node with WETH, the Uniswap V2 factory and router
 * from npm and test tokens; the whole product in front of it; a signing webhook that signs with
 * the node's development keys. The node does not automine: the test mines the block after the
 * launch once the executor has decided every intent, as a real chain would.
 */
const CHAIN_ID = 31337;
const COINBASE = '0xc014ba5ec014ba5ec014ba5ec014ba5ec014ba5e';
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;

describe('intent execution on a local chain', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let secret = '';
  let signer: SigningWebhook;
  let sink: NotificationSink;
  const wallets = Array.from({ length: 16 }, (_, i) => devWallet(i + 1));
  /** Wallet 15's key is the development signer's. */
  const devSigned = wallets[15]!;

  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = (seconds = 3600) => Math.floor(Date.now() / 1000) + seconds;

  async function create(body: Record<string, unknown>): Promise<IntentRecord> {
    const res = await stack.request<IntentRecord>('POST', '/v1/intent', {
      key,
      body: { chainId: CHAIN_ID, bribe: '0', buyAmount: (ETH / 100n).toString(), expiry: expiry(), gasTip: '0', webhookUrl: signer.url, notificationWebhookUrl: sink.url, ...body },
    });
    expect(res.status).toBe(201);
    return res.body;
  }
  const get = async (id: string) => (await stack.request<IntentRecord>('GET', `/v1/intent/${id}`, { key })).body;
  const rows = (ids: string[]) =>
    stack.db.query<{ id: string; status: string; phase: string | null }>('SELECT id::text, status, phase FROM intent.intents WHERE id = ANY($1::uuid[])', [ids]);
  /** Every intent is decided: terminal, or its buy is in the node's mempool. */
  const decided = async (ids: string[]) => (await rows(ids)).every((r) => r.status !== 'pending' || r.phase === 'submitted');
  const terminal = async (ids: string[]) => (await rows(ids)).every((r) => r.status !== 'pending');

  /** Launches `token`, waits until every intent is decided, mines the next block and waits for the outcomes. */
  async function launchAndSettle(token: string, intents: IntentRecord[], native = ETH): Promise<Map<string, IntentRecord>> {
    const ids = intents.map((i) => i.id);
    await dex.launch(token, SUPPLY / 10n, native);
    await eventually('every intent decided', () => decided(ids), 30_000).catch(async (e) => {
      console.log(await stack.db.query('SELECT * FROM intent.launches'), await stack.db.query('SELECT max(number) FROM intent.chain_blocks'), await rpc('eth_blockNumber'), await rows(ids));
      throw e;
    });
    await rpc('evm_mine');
    await eventually('every outcome recorded', () => terminal(ids), 30_000);
    return new Map(await Promise.all(ids.map(async (id) => [id, await get(id)] as const)));
  }

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await rpc('evm_setAutomine', [false]);
    stack = await Stack.start({
      CHAIN_IDS: String(CHAIN_ID),
      RPC_URL_31337: node.url,
      HARDFORK_31337: 'prague',
      DEX_FACTORY_31337: dex.factory,
      DEX_ROUTER_31337: dex.router,
      WRAPPED_NATIVE_31337: dex.weth,
      DEV_SIGNER_KEYS_31337: devSigned.privateKey,
      LAUNCH_POLL_INTERVAL_MS: '100',
      EXPIRY_SWEEP_INTERVAL_MS: '100',
      SIGNER_TIMEOUT_MS: '3000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    key = await stack.createKey();
    secret = (await stack.request('GET', '/v1/intents/notifications/secret', { key })).body.secret;
    signer = await new SigningWebhook(() => secret, wallets).start();
    sink = await new NotificationSink(() => secret).start();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await signer?.close();
    await sink?.close();
    await node?.stop();
  });

  it('buys a plain token at launch for every intent, highest bribe first, paying fee and bribe exactly', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const feeRecipient = wallets[14]!.address;
    const [a, b, c] = [wallets[0]!, wallets[1]!, wallets[2]!];
    const low = await create({ wallet: a.address, tokenAddress: token, bribe: '1000' });
    const high = await create({ wallet: b.address, tokenAddress: token, bribe: '5000000', feeBps: 100, feeRecipient, firstOrFail: true });
    const limited = await create({ wallet: c.address, tokenAddress: token, bribe: '2000', minOut: '1', maxSlippageBps: 5000, maxBuyTax: 0.01, maxSellTax: 0.01 });
    const feeBefore = BigInt(await rpc('eth_getBalance', [feeRecipient, 'latest']));

    const done = await launchAndSettle(token, [low, high, limited]);

    for (const intent of [low, high, limited]) {
      const record = done.get(intent.id)!;
      expect(record).toMatchObject({ status: 'completed', statusReason: null });
      expect(record.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(Date.parse(record.executedAt!)).toBeGreaterThan(0);
      const receipt = await rpc('eth_getTransactionReceipt', [record.txHash]);
      expect(receipt.status).toBe('0x1');
      expect(receipt.from.toLowerCase()).toBe(intent.wallet.toLowerCase());
    }
    const balances = await Promise.all([a, b, c].map((w) => dex.balanceOf(token, w.address)));
    expect(balances.every((x) => x > 0n)).toBe(true);
    // The 1 % fee, to the wei; the bribes went to the block's coinbase (no tip, base fee 0).
    expect(BigInt(await rpc('eth_getBalance', [feeRecipient, 'latest'])) - feeBefore).toBe(ETH / 100n / 100n);
    // Highest bribe first, all in the block after the launch.
    const txs = await Promise.all([high, limited, low].map((i) => rpc('eth_getTransactionReceipt', [done.get(i.id)!.txHash])));
    expect(new Set(txs.map((t) => t.blockNumber)).size).toBe(1);
    const block = BigInt(txs[0].blockNumber);
    const coinbase = async (n: bigint) => BigInt(await rpc('eth_getBalance', [COINBASE, `0x${n.toString(16)}`]));
    expect((await coinbase(block)) - (await coinbase(block - 1n))).toBe(5_000_000n + 2000n + 1000n);
    expect(txs.map((t) => Number(t.transactionIndex))).toEqual([0, 1, 2]);
    expect(balances[2]!).toBeGreaterThan(balances[0]!); // c bought before a at a better price

    // The signer was asked once per intent, with a verifiable request naming the launch.
    for (const intent of [low, high, limited]) {
      const requests = signer.requestsFor(intent.id);
      expect(requests).toHaveLength(1);
      expect(requests[0]!.verified).toBe(true);
      expect(requests[0]!.request.transactions[0]!.summary.token.toLowerCase()).toBe(token);
    }
    expect(signer.requestsFor(high.id)[0]!.request.transactions[0]!.summary.onlyInBlock).not.toBeNull();
    // Notifications: created, then completed, each signed.
    await eventually('completion notified', () => [low, high, limited].every((i) => sink.for(i.id).some((n) => n.type === 'completed')));
    for (const intent of [low, high, limited]) {
      expect(sink.for(intent.id).map((n) => n.type)).toEqual(['created', 'completed']);
      expect(sink.for(intent.id).every((n) => n.verified)).toBe(true);
    }
  });
});
