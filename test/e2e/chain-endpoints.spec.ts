import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, JsonRpcProxy, LocalDex, type ProxyFault } from '@tradeinfra/test-support';
import { LaunchDriver } from './execution-support.js';
import { Stack } from './harness.js';

/**
 * A chain served by two endpoints (JSON-RPC proxies in front of one hardhat node, which does not
 * automine): one of them goes bad at a time (dead, stalled, a stale head, `null` blocks), and
 * the launch is still seen and bought through the other. Then the chain is reset under the used
 * database, and the next launch is still seen.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;

describe('a chain with two endpoints, one of them going bad', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let a: JsonRpcProxy;
  let b: JsonRpcProxy;
  let stack: Stack;
  let key: string;
  let driver: LaunchDriver;
  const wallets = Array.from({ length: 4 }, (_, i) => devWallet(i + 1));
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const cursor = async () => BigInt((await stack.db.query<{ n: string | null }>('SELECT max(number)::text AS n FROM intent.chain_blocks'))[0]!.n ?? '-1');
  const head = async () => BigInt(await rpc<string>('eth_blockNumber'));
  const health = async () => (await stack.request('GET', '/health/services')).body;
  const endpoints = async (service = 'intent-service') =>
    (await health()).services[service].chains[0].endpoints as { url: string; state: string; lag: number | null; reads: boolean }[];

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await rpc('evm_setAutomine', [false]);
    [a, b] = await Promise.all([JsonRpcProxy.start({ upstream: node.url }), JsonRpcProxy.start({ upstream: node.url })]);
    stack = await Stack.start({
      CHAIN_IDS: String(CHAIN_ID),
      RPC_URL_31337: `${a.url},${b.url}`,
      // New heads from both; launches from blocks only (the mempool path has its tests).
      WS_URL_31337: `${a.wsUrl},${b.wsUrl}`,
      MEMPOOL_LAUNCHES_31337: 'off',
      HARDFORK_31337: 'prague',
      DEX_FACTORY_31337: dex.factory,
      DEX_ROUTER_31337: dex.router,
      WRAPPED_NATIVE_31337: dex.weth,
      DEV_SIGNER_KEYS_31337: wallets.map((w) => w.privateKey).join(','),
      LAUNCH_POLL_INTERVAL_MS: '100',
      RPC_CHECK_INTERVAL_MS: '200',
      RPC_CHECK_TIMEOUT_MS: '500',
      RPC_MAX_LAG_BLOCKS: '2',
    });
    key = await stack.createKey();
    driver = new LaunchDriver(stack, node, dex, () => key, SUPPLY / 10n);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await Promise.all([a?.close(), b?.close()]);
    await node?.stop();
  });

  /** Intents on a fresh token from each wallet, launched and settled while endpoint `a` has `fault`. */
  async function launchWith(fault: ProxyFault | null): Promise<Map<string, IntentRecord>> {
    const token = await driver.approvedToken(SUPPLY);
    const intents = await Promise.all(
      wallets.slice(0, 2).map((w, i) => driver.create({ wallet: w.address, tokenAddress: token, bribe: String(1000 * (i + 1)) })),
    );
    await eventually('watcher following the chain', async () => (await cursor()) >= (await head()));
    await a.fault(fault);
    try {
      return await driver.launchAndSettle(token, intents, ETH);
    } finally {
      await a.fault(null);
    }
  }

  it('shows each endpoint in /health/services: its head, lag and state, and which one reads', async () => {
    await eventually('both endpoints up', async () => (await endpoints()).every((e) => e.state === 'up'));
    const seen = await endpoints();
    expect(seen.map((e) => e.url)).toEqual([a.url, b.url]);
    // Exactly one reads (which one is each replica's own choice: the first up, unless a check of it
    // timed out on a loaded box), and it is up and at the head.
    const reading = seen.filter((e) => e.reads);
    expect(reading).toHaveLength(1);
    expect(reading[0]).toMatchObject({ state: 'up', head: String(await head()), lag: 0, latencyMs: expect.any(Number) });
    // The simulation service reads the same chain through the same two endpoints.
    expect((await endpoints('simulation-service')).map((e) => e.url)).toEqual([a.url, b.url]);
    expect((await health()).status).toBe('ok');
  });

  it.each([
    ['dead', { kind: 'down' }],
    ['stalled', { kind: 'stall' }],
    ['answering null for blocks and receipts', { kind: 'null' }],
  ] as [string, ProxyFault][])('sees the launch and buys through the other endpoint while one is %s', async (_name, fault) => {
    const done = await launchWith(fault);
    for (const record of done.values()) expect(record).toMatchObject({ status: 'completed', statusReason: null });
  });

  it('reads nothing from an endpoint behind the highest head, and says so in /health/services', async () => {
    await a.fault({ kind: 'stale', head: await head() });
    for (let i = 0; i < 3; i++) await rpc('evm_mine');
    await eventually('first endpoint lagging', async () => (await endpoints())[0]!.state === 'lagging');
    expect((await endpoints())[0]).toMatchObject({ lag: 3, reads: false });
    expect((await health()).status).toBe('degraded');
    const token = await driver.approvedToken(SUPPLY);
    const intent = await driver.create({ wallet: wallets[2]!.address, tokenAddress: token, bribe: '1000' });
    await eventually('watcher following the chain', async () => (await cursor()) >= (await head()));
    a.reset();
    const done = await driver.launchAndSettle(token, [intent], ETH);
    expect(done.get(intent.id)).toMatchObject({ status: 'completed' });
    // Only the background checks went to it (and the buys: sends go to every live endpoint).
    const methods = Object.keys(a.stats().byMethod).filter((m) => m !== 'eth_blockNumber' && m !== 'eth_sendRawTransaction');
    expect(methods).toEqual([]);
    await a.fault(null);
    await eventually('first endpoint up again', async () => (await endpoints())[0]!.state === 'up');
  });

  it('follows a chain reset under its used database from the new head, and sees the next launch', async () => {
    // A cursor far above the new chain's head: what a reset chain under a used database leaves.
    await rpc('hardhat_mine', ['0x200']);
    await eventually('watcher following the chain', async () => (await cursor()) >= (await head()));
    const before = await cursor();
    const last = Number((await rpc<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false])).timestamp);
    await rpc('hardhat_reset', []);
    await rpc('evm_setAutomine', [false]);
    // A reset node starts again from its first block's time: deploying the same contracts at once
    // would make the same blocks, a chain behind, not a new one. Later blocks make it new.
    await rpc('evm_setNextBlockTimestamp', [last + 1]);
    dex = await LocalDex.deploy(node);
    driver = new LaunchDriver(stack, node, dex, () => key, SUPPLY / 10n);
    expect(await head()).toBeLessThan(before);
    // The new chain's DEX is where the old one was (same deployer, same nonces).
    expect(dex.factory).toBe(stack.intentEnv.watchedChains[0]!.factory);
    await eventually('following the reset chain', async () => (await cursor()) === (await head()), 15_000);
    const done = await launchWith(null);
    for (const record of done.values()) expect(record).toMatchObject({ status: 'completed', statusReason: null });
  });
});
