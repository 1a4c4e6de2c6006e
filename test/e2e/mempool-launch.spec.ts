import { connect } from '@nats-io/transport-node';
import { SIMULATION_SIMULATE, SIMULATION_SIMULATE_STREAM, type IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, LocalRelay, mined } from '@tradeinfra/test-support';
import { keccak256, MaxUint256 } from 'ethers';
import { LaunchDriver, startMempoolStack } from './execution-support.js';
import { PendingLaunchWatcher } from '../../apps/intent-service/src/launch/pending/pending-launch-watcher.js';
import type { Stack } from './harness.js';

/**
 * Launches seen in the mempool (MEMPOOL_LAUNCHES over the node's WebSocket) on a local chain that
 * does not automine and mines its pool in arrival order: the launch transaction is sent, the
 * service buys right behind it, and one mined block holds the launch followed by the buys, in
 * bribe order. Nothing is mined until the test says so.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;

/** The whole product on the local chain, following its mempool over the node's WebSocket. */
describe('same-block launches: buys right behind a launch seen in the mempool', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let driver: LaunchDriver;
  const wallets = Array.from({ length: 6 }, (_, i) => devWallet(i + 1));
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await rpc('evm_setAutomine', [false]);
    stack = await startMempoolStack(node, dex, wallets, { EXPIRY_SWEEP_INTERVAL_MS: '100' });
    key = await stack.createKey();
    driver = new LaunchDriver(stack, node, dex, () => key, SUPPLY / 10n);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await node?.stop();
  });

  const create = (body: Record<string, unknown>) => driver.create(body);

  /** The service recognises a pending launch of `token` now (it has refreshed the tokens it watches since the intents were made). */
  const watching = (token: string) => driver.watchingPending(CHAIN_ID, token);

  /** Sends `data` from the DEX owner without mining it; answers the transaction hash. */
  const pendingTx = (to: string, data: string, value = 0n) =>
    rpc<string>('eth_sendTransaction', [{ from: dex.owner, to, data, value: `0x${value.toString(16)}`, gas: '0x7a1200' }]);

  /** Mines one block once every intent is decided (its buy in the mempool, or failed), and answers the records and the block. */
  async function mineWhenDecided(intents: IntentRecord[]) {
    const ids = intents.map((i) => i.id);
    await eventually('every intent decided', () => driver.decided(ids), 30_000);
    await rpc('evm_mine');
    await eventually('every outcome recorded', () => driver.terminal(ids), 30_000);
    const block = await rpc<{ number: string; transactions: string[] }>('eth_getBlockByNumber', ['latest', false]);
    return { records: new Map(await Promise.all(ids.map(async (id) => [id, await driver.get(id)] as const))), block };
  }

  const approvedToken = () => driver.approvedToken(SUPPLY);

  it('buys in the launch block: one block holds the launch, then the buys in bribe order, and every intent completes in it (firstOrFail too)', async () => {
    const token = await approvedToken();
    const [a, b, c] = wallets;
    const low = await create({ wallet: a!.address, tokenAddress: token, bribe: '1000' });
    const high = await create({ wallet: b!.address, tokenAddress: token, bribe: '9000', firstOrFail: true });
    const mid = await create({ wallet: c!.address, tokenAddress: token, bribe: '5000', firstOrFail: true });
    await watching(token);
    // Every simulation the services ask for (a plain subscription gets a copy of each request).
    const nc = await connect({ servers: stack.nats.url });
    const simulations: string[] = [];
    const spies = [SIMULATION_SIMULATE, SIMULATION_SIMULATE_STREAM].map((subject) =>
      nc.subscribe(subject, {
        callback: (_err, msg) => {
          simulations.push(msg.string());
        },
      }),
    );
    await nc.flush();
    const addLiquidity = dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, SUPPLY / 10n, 0, 0, dex.owner, expiry()]);
    const launchBlock = BigInt(await rpc<string>('eth_blockNumber')) + 1n;
    const launch = await pendingTx(dex.router, addLiquidity, 5n * ETH);
    await eventually('every intent decided', () => driver.decided([low, high, mid].map((i) => i.id)), 30_000);
    for (const spy of spies) spy.unsubscribe();
    await nc.close();
    // One simulation of this token for the whole launch: the launch transaction, with the token
    // probe (a buy, then a sale) run right behind it in the same simulation; the round does not
    // probe again. (Other services' simulations, a payout's prices, name other contracts.)
    type Sim = { data: { body: { calls: { to: string | null; data?: string }[] } } };
    const names = (c: { to: string | null; data?: string }) =>
      c.to?.toLowerCase() === token.toLowerCase() || (c.data ?? '').toLowerCase().includes(token.slice(2).toLowerCase());
    const ofToken = simulations.map((m) => (JSON.parse(m) as Sim).data.body.calls).filter((cs) => cs.some(names));
    if (ofToken.length > 1) {
      // The documented fallback when that simulation does not answer within its 2 s (a machine
      // far past its cores): the launch alone, then the round's own probe. Nothing else.
      expect(ofToken).toHaveLength(3);
      expect(ofToken[1]).toEqual([ofToken[0]![0]]);
      process.stderr.write('mempool-launch: the launch and probe simulation timed out; the fallback (launch alone, then a probe) ran\n');
    }
    const calls = ofToken[0]!;
    expect(calls.length).toBeGreaterThan(1);
    expect(calls[0]!.to?.toLowerCase()).toBe(dex.router.toLowerCase());
    expect(calls.some((c) => c.to === null)).toBe(true); // the probe's buy (init code)
    const { records, block } = await mineWhenDecided([low, high, mid]);
    expect(BigInt(block.number)).toBe(launchBlock);
    const order = [high, mid, low].map((i) => records.get(i.id)!.txHash);
    expect(block.transactions).toEqual([launch, ...order]);
    for (const i of [low, high, mid]) expect(records.get(i.id)).toMatchObject({ status: 'completed', statusReason: null });
    for (const w of [a, b, c]) expect(await dex.balanceOf(token, w!.address)).toBeGreaterThan(0n);
    // The launch is recorded as the LaunchWatcher sees it once mined, and nothing pending is left.
    await eventually('the launch recorded and the pending one gone', async () => {
      const [row] = await stack.db.query<{ mined: number; pending: number }>(
        `SELECT (SELECT count(*)::int FROM intent.launches WHERE token = $1) AS mined, (SELECT count(*)::int FROM intent.pending_launches WHERE token = $1) AS pending`,
        [token.toLowerCase()],
      );
      return row!.mined === 1 && row!.pending === 0;
    });
    // Each record names the launch: seen pending, its transaction, and the block it was mined in.
    for (const i of [low, high, mid]) {
      expect((await driver.get(i.id)).launch).toEqual({ type: 'public_transaction', txHash: launch, blockNumber: Number(launchBlock), launchTxHash: launch });
    }
  }, 90_000);

  it('a wallet with a transaction of its own in the node’s pool: its buy takes the nonce after it and still lands in the launch block', async () => {
    const token = await approvedToken();
    const w = wallets[0]!;
    const intent = await create({ wallet: w.address, tokenAddress: token, bribe: '1000' });
    await watching(token);
    // The wallet's own transfer waits in the pool (no automine), ahead of the launch.
    const nonce = BigInt(await rpc<string>('eth_getTransactionCount', [w.address, 'latest']));
    const transfer = await rpc<string>('eth_sendTransaction', [{ from: w.address, to: dex.owner, value: '0x1' }]);
    const addLiquidity = dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, SUPPLY / 10n, 0, 0, dex.owner, expiry()]);
    const launchBlock = BigInt(await rpc<string>('eth_blockNumber')) + 1n;
    const launch = await pendingTx(dex.router, addLiquidity, 5n * ETH);
    const { records, block } = await mineWhenDecided([intent]);
    const record = records.get(intent.id)!;
    expect(record).toMatchObject({ status: 'completed', statusReason: null });
    expect(BigInt(block.number)).toBe(launchBlock);
    expect(block.transactions).toEqual([transfer, launch, record.txHash]);
    const buy = await rpc<{ nonce: string }>('eth_getTransactionByHash', [record.txHash]);
    expect(BigInt(buy.nonce)).toBe(nonce + 1n);
  }, 90_000);

  it('a private launch (first seen in its block although the mempool is followed): the block path buys in the next block', async () => {
    const token = await approvedToken();
    const addLiquidity = dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, SUPPLY / 10n, 0, 0, dex.owner, expiry()]);
    // The launch reaches the pool before anyone waits for the token: nothing recognises it there,
    // as for a launch sent privately to a builder.
    const launch = await pendingTx(dex.router, addLiquidity, ETH);
    const intent = await create({ wallet: wallets[5]!.address, tokenAddress: token, bribe: '100' });
    await watching(token);
    await rpc('evm_mine');
    const launchBlock = BigInt(await rpc<string>('eth_blockNumber'));
    expect((await rpc<{ transactions: string[] }>('eth_getBlockByNumber', ['latest', false])).transactions).toEqual([launch]);
    const { records, block } = await mineWhenDecided([intent]);
    expect(BigInt(block.number)).toBe(launchBlock + 1n);
    expect(block.transactions).toEqual([records.get(intent.id)!.txHash]);
    expect(records.get(intent.id)).toMatchObject({
      status: 'completed',
      launch: { type: 'private_transaction', txHash: launch, blockNumber: Number(launchBlock) },
    });
  }, 90_000);

  it('buys behind a launch through the token’s own openTrading()', async () => {
    const token = await dex.deployToken('TradingToken', [SUPPLY, dex.router]);
    await mined(node, dex.owner, token, '0x', 3n * ETH);
    const intent = await create({ wallet: wallets[3]!.address, tokenAddress: token, bribe: '100', firstOrFail: true });
    await watching(token);
    const launch = await pendingTx(token, dex.a.TradingToken!.iface.encodeFunctionData('openTrading'));
    const { records, block } = await mineWhenDecided([intent]);
    expect(block.transactions).toEqual([launch, records.get(intent.id)!.txHash]);
    expect(records.get(intent.id)).toMatchObject({ status: 'completed' });
  }, 90_000);

  it('checks a token seen pending on the state after its launch: a honeypot fails before anything is sent', async () => {
    const token = await dex.deployToken('HoneypotToken', [SUPPLY]);
    await mined(node, dex.owner, token, dex.a.PlainToken!.iface.encodeFunctionData('approve', [dex.router, MaxUint256]));
    const intent = await create({ wallet: wallets[4]!.address, tokenAddress: token });
    await watching(token);
    const addLiquidity = dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, SUPPLY / 10n, 0, 0, dex.owner, expiry()]);
    const launch = await pendingTx(dex.router, addLiquidity, ETH);
    // Failed while the launch is still pending: nothing was sent behind it.
    await eventually('the honeypot intent failed', async () => (await driver.get(intent.id)).status === 'failed', 30_000);
    expect(await rpc('eth_getTransactionReceipt', [launch])).toBeNull();
    expect(await driver.get(intent.id)).toMatchObject({
      status: 'failed',
      statusReason: 'honeypot',
      txHash: null,
      launch: { type: 'public_transaction', txHash: launch, blockNumber: null },
    });
    await rpc('evm_mine');
    const block = await rpc<{ transactions: string[] }>('eth_getBlockByNumber', ['latest', false]);
    expect(block.transactions).toEqual([launch]);
  }, 90_000);
});

/**
 * The bundle form: with RELAY_URLS, the buys behind a pending launch go to the relay as one
 * bundle, the launch transaction first. The relay here records what it receives and, as a
 * builder would, puts the latest bundle's transactions in the node's pool in their order.
 */
describe('same-block launches through a relay: one bundle, the launch first', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let relay: LocalRelay;
  const wallets = Array.from({ length: 4 }, (_, i) => devWallet(i + 7));
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await rpc('evm_setAutomine', [false]);
    relay = await LocalRelay.start();
    stack = await startMempoolStack(node, dex, wallets, { RELAY_URLS_31337: relay.url });
    key = await stack.createKey();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await relay?.stop();
    await node?.stop();
  });

  it('sends [launch, buys in bribe order] for the launch block; built as sent, every intent completes in that block', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    await mined(node, dex.owner, token, dex.a.PlainToken!.iface.encodeFunctionData('approve', [dex.router, MaxUint256]));
    const intents: IntentRecord[] = [];
    for (const [w, bribe, firstOrFail] of [
      [wallets[0]!, '100', false],
      [wallets[1]!, '300', true],
    ] as const) {
      const res = await stack.request<IntentRecord>('POST', '/v1/intent', {
        key,
        body: {
          chainId: CHAIN_ID,
          wallet: w.address,
          tokenAddress: token,
          bribe,
          firstOrFail,
          buyAmount: (ETH / 100n).toString(),
          expiry: expiry(),
          gasTip: '0',
        },
      });
      expect(res.status).toBe(201);
      intents.push(res.body);
    }
    await eventually(`pending launches of ${token} watched`, () => stack.intentReplicas.every((r) => r.get(PendingLaunchWatcher).watches(CHAIN_ID, token)));
    const launchBlock = BigInt(await rpc<string>('eth_blockNumber')) + 1n;
    const addLiquidity = dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, SUPPLY / 10n, 0, 0, dex.owner, expiry()]);
    const launch = await rpc<string>('eth_sendTransaction', [
      { from: dex.owner, to: dex.router, data: addLiquidity, value: `0x${(5n * ETH).toString(16)}`, gas: '0x7a1200' },
    ]);
    const last = await relay.waitFor((b) => b.txs.length === 3);
    const [first, ...buys] = last.txs;
    expect(keccak256(first!)).toBe(launch);
    expect(last).toMatchObject({ blockNumber: `0x${launchBlock.toString(16)}`, revertingTxHashes: [] });
    const records = await Promise.all(intents.map((i) => stack.request<IntentRecord>('GET', `/v1/intent/${i.id}`, { key })));
    // Highest bribe first.
    expect(buys.map((raw) => keccak256(raw))).toEqual([records[1]!.body.txHash, records[0]!.body.txHash]);
    // A backup bundle for the block after, without the launch: the intent that is not firstOrFail only.
    const backup = await relay.waitFor((b) => b.blockNumber === `0x${(launchBlock + 1n).toString(16)}`);
    expect(backup.txs.map((raw) => keccak256(raw))).toEqual([records[0]!.body.txHash]);
    // The firstOrFail buy never goes anywhere but right behind the launch.
    for (const b of relay.bundles) if (b.txs.some((raw) => keccak256(raw) === records[1]!.body.txHash)) expect(keccak256(b.txs[0]!)).toBe(launch);
    // The builder: the bundle's transactions in its order (the launch is already in the pool).
    for (const raw of last.txs) await rpc('eth_sendRawTransaction', [raw]).catch(() => undefined);
    await rpc('evm_mine');
    const block = await rpc<{ number: string; transactions: string[] }>('eth_getBlockByNumber', ['latest', false]);
    expect(block.transactions).toEqual([launch, ...buys.map((raw) => keccak256(raw))]);
    await eventually('both intents completed', async () => {
      const now = await Promise.all(intents.map((i) => stack.request<IntentRecord>('GET', `/v1/intent/${i.id}`, { key })));
      return now.every((r) => r.body.status === 'completed');
    });
  }, 90_000);

  it('a launch replaced before its block: the bundle cannot land, nothing pays, the launch is forgotten and the intents wait again (launch_replaced)', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    await mined(node, dex.owner, token, dex.a.PlainToken!.iface.encodeFunctionData('approve', [dex.router, MaxUint256]));
    const w = wallets[2]!;
    const res = await stack.request<IntentRecord>('POST', '/v1/intent', {
      key,
      body: { chainId: CHAIN_ID, wallet: w.address, tokenAddress: token, bribe: '100', buyAmount: (ETH / 100n).toString(), expiry: expiry(), gasTip: '0' },
    });
    expect(res.status).toBe(201);
    await eventually(`pending launches of ${token} watched`, () => stack.intentReplicas.every((r) => r.get(PendingLaunchWatcher).watches(CHAIN_ID, token)));
    const balanceBefore = BigInt(await rpc<string>('eth_getBalance', [w.address, 'latest']));
    const nonce = await rpc<string>('eth_getTransactionCount', [dex.owner, 'pending']);
    const addLiquidity = dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, SUPPLY / 10n, 0, 0, dex.owner, expiry()]);
    const gas = { gas: '0x7a1200', maxFeePerGas: '0x3b9aca00', maxPriorityFeePerGas: '0x3b9aca00' };
    const launch = await rpc<string>('eth_sendTransaction', [
      { from: dex.owner, to: dex.router, data: addLiquidity, value: `0x${ETH.toString(16)}`, nonce, ...gas },
    ]);
    await relay.waitFor((b) => b.txs[0] !== undefined && keccak256(b.txs[0]) === launch);
    // The launcher changes its mind: the same nonce, a plain transfer, paying more.
    const replacement = await rpc<string>('eth_sendTransaction', [
      { from: dex.owner, to: dex.owner, value: '0x0', nonce, gas: '0x5208', maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x77359400' },
    ]);
    await rpc('evm_mine');
    const block = await rpc<{ transactions: string[] }>('eth_getBlockByNumber', ['latest', false]);
    expect(block.transactions).toEqual([replacement]);
    await eventually('the pending launch forgotten', async () => {
      const [row] = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM intent.pending_launches WHERE token = $1', [token.toLowerCase()]);
      return row!.n === 0;
    });
    // Nothing was bought and the wallet paid nothing; the intent waits for the real launch.
    expect(await dex.balanceOf(token, w.address)).toBe(0n);
    expect(BigInt(await rpc<string>('eth_getBalance', [w.address, 'latest']))).toBe(balanceBefore);
    expect(await rpc('eth_getTransactionByHash', [launch])).toBeNull();
    // The intent waits again, as if the launch had never been seen.
    await eventually('the intent waiting again', async () => {
      const now = (await stack.request<IntentRecord>('GET', `/v1/intent/${res.body.id}`, { key })).body;
      return now.status === 'pending' && now.txHash === null;
    });
    // It says why, and which buy went out behind which launch (the buy never landed: it cost nothing).
    const back = (await stack.request<IntentRecord>('GET', `/v1/intent/${res.body.id}`, { key })).body;
    expect(back).toMatchObject({ status: 'pending', statusReason: 'launch_replaced', statusData: { launchTxHash: launch }, launch: null });
    expect(await rpc('eth_getTransactionReceipt', [back.statusData!.txHash])).toBeNull();
    // The real launch comes: the intent is bought behind it, in its block.
    await eventually(`pending launches of ${token} watched again`, () =>
      stack.intentReplicas.every((r) => r.get(PendingLaunchWatcher).watches(CHAIN_ID, token)),
    );
    const realLaunch = await rpc<string>('eth_sendTransaction', [
      { from: dex.owner, to: dex.router, data: addLiquidity, value: `0x${ETH.toString(16)}`, ...gas },
    ]);
    const bundle = await relay.waitFor((b) => b.txs.length === 2 && keccak256(b.txs[0]!) === realLaunch);
    await rpc('eth_sendRawTransaction', [bundle.txs[1]]);
    await rpc('evm_mine');
    await eventually(
      'the intent completed',
      async () => (await stack.request<IntentRecord>('GET', `/v1/intent/${res.body.id}`, { key })).body.status === 'completed',
    );
    const done = (await stack.request<IntentRecord>('GET', `/v1/intent/${res.body.id}`, { key })).body;
    expect(done).toMatchObject({ txHash: keccak256(bundle.txs[1]!), launch: { type: 'public_transaction', txHash: realLaunch } });
    expect(await dex.balanceOf(token, w.address)).toBeGreaterThan(0n);
  }, 90_000);

  it('a launch that reverts in its block (its approval was revoked just before): the intent waits again, having paid nothing', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const plain = dex.a.PlainToken!.iface;
    await mined(node, dex.owner, token, plain.encodeFunctionData('approve', [dex.router, MaxUint256]));
    const w = wallets[3]!;
    const res = await stack.request<IntentRecord>('POST', '/v1/intent', {
      key,
      body: { chainId: CHAIN_ID, wallet: w.address, tokenAddress: token, bribe: '100', buyAmount: (ETH / 100n).toString(), expiry: expiry(), gasTip: '0' },
    });
    await eventually(`pending launches of ${token} watched`, () => stack.intentReplicas.every((r) => r.get(PendingLaunchWatcher).watches(CHAIN_ID, token)));
    const balanceBefore = BigInt(await rpc<string>('eth_getBalance', [w.address, 'latest']));
    // The revoke is pending ahead of the launch: on the head the launch still adds liquidity.
    await rpc('eth_sendTransaction', [{ from: dex.owner, to: token, data: plain.encodeFunctionData('approve', [dex.router, 0]), gas: '0x100000' }]);
    const addLiquidity = dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, SUPPLY / 10n, 0, 0, dex.owner, expiry()]);
    const launch = await rpc<string>('eth_sendTransaction', [
      { from: dex.owner, to: dex.router, data: addLiquidity, value: `0x${ETH.toString(16)}`, gas: '0x7a1200' },
    ]);
    const bundle = await relay.waitFor((b) => b.txs[0] !== undefined && keccak256(b.txs[0]) === launch);
    await rpc('evm_mine');
    expect((await rpc<{ status: string }>('eth_getTransactionReceipt', [launch])).status).toBe('0x0');
    await eventually('the intent waiting again', async () => {
      const now = (await stack.request<IntentRecord>('GET', `/v1/intent/${res.body.id}`, { key })).body;
      return now.status === 'pending' && now.txHash === null && now.statusReason === 'launch_dropped';
    });
    // The buy was never built into a block: nothing bought, nothing paid.
    expect(await rpc('eth_getTransactionReceipt', [keccak256(bundle.txs[1]!)])).toBeNull();
    expect(await dex.balanceOf(token, w.address)).toBe(0n);
    expect(BigInt(await rpc<string>('eth_getBalance', [w.address, 'latest']))).toBe(balanceBefore);
  }, 90_000);
});
