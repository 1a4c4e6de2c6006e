import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, mined, SigningWebhook } from '@tradeinfra/test-support';
import { MaxUint256 } from 'ethers';
import { Stack } from './harness.js';
import { LaunchDriver, NotificationSink } from './execution-support.js';

/**
 * Exits on a local chain (automine off): a hardhat node with WETH, Uniswap V2 and test tokens,
 * the whole product in front of it, a signing webhook holding the wallets' keys. Other accounts
 * move the price with real router swaps; the test mines the block after an exit's sell is sent.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;
/** Each token's launch: 10^26 tokens against 10 ETH, so 10^11 wei per whole token. */
const POOL_TOKENS = 10n ** 26n;
const POOL_NATIVE = 10n * ETH;
const SPOT = '100000000000';
/** What the exits' wallets hold: 1 % of the pool. */
const HELD = 10n ** 24n;

describe('exits on a local chain', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let secret = '';
  let signer: SigningWebhook;
  let sink: NotificationSink;
  let driver: LaunchDriver;
  const wallets = Array.from({ length: 10 }, (_, i) => devWallet(i + 1));
  /** Moves prices: buys and sells through the router (an unlocked account of the node). */
  const trader = devWallet(12).address.toLowerCase();

  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = (seconds = 3600) => Math.floor(Date.now() / 1000) + seconds;
  const router = () => dex.a.UniswapV2Router02!.iface;
  const erc20 = () => dex.a.PlainToken!.iface;

  async function createExit(body: Record<string, unknown>): Promise<IntentRecord> {
    const res = await stack.request<IntentRecord>('POST', '/v1/exit', {
      key,
      body: {
        chainId: CHAIN_ID,
        expiry: expiry(),
        gasTip: '0',
        webhookUrl: signer.url,
        webhookProtocol: 'tradeinfra',
        notificationWebhookUrl: sink.url,
        ...body,
      },
    });
    if (res.status !== 201) throw new Error(`POST /v1/exit: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  const get = (id: string) => driver.get(id);

  /** A launched plain token (10^26 tokens, 10 ETH) and `HELD` of it given to `wallet`. */
  async function launchedHeldBy(wallet: string, name: 'PlainToken' | 'HoneypotToken' = 'PlainToken'): Promise<string> {
    const token = await dex.deployToken(name, [SUPPLY]);
    await dex.launch(token, POOL_TOKENS, POOL_NATIVE);
    await mined(node, dex.owner, token, erc20().encodeFunctionData('transfer', [wallet, HELD]));
    return token;
  }

  /** Another account buys with `native` wei (the price rises). */
  async function buy(token: string, native: bigint): Promise<void> {
    const data = router().encodeFunctionData('swapExactETHForTokensSupportingFeeOnTransferTokens', [0, [dex.weth, token], trader, expiry()]);
    await mined(node, trader, dex.router, data, native);
  }

  /** The deployer sells `amount` tokens (the price falls). */
  async function sell(token: string, amount: bigint): Promise<void> {
    const data = router().encodeFunctionData('swapExactTokensForETHSupportingFeeOnTransferTokens', [amount, 0, [token, dex.weth], dex.owner, expiry()]);
    await mined(node, dex.owner, dex.router, data);
  }

  /** The exit's sell is in the node's mempool: mine it, and answer the exit's final record. */
  async function settle(id: string): Promise<IntentRecord> {
    await eventually(
      `exit ${id} sent`,
      async () => {
        const r = await get(id);
        return r.status !== 'pending' || (r.txHash !== null && (await rpc('eth_getTransactionByHash', [r.txHash])) !== null);
      },
      30_000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(await get(id))}`);
    });
    await rpc('evm_mine');
    await eventually(`exit ${id} settled`, async () => (await get(id)).status !== 'pending', 30_000);
    return get(id);
  }

  /** Blocks mined one by one, each awaited by the exit watcher (its highest price moves with them). */
  const mineBlocks = async (n: number) => {
    for (let i = 0; i < n; i++) await rpc('evm_mine');
  };

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
      LAUNCH_POLL_INTERVAL_MS: '100',
      EXPIRY_SWEEP_INTERVAL_MS: '100',
      SIGNER_TIMEOUT_MS: '3000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    key = await stack.createKey();
    driver = new LaunchDriver(stack, node, dex, () => key, POOL_TOKENS);
    secret = (await stack.request('GET', '/v1/intents/notifications/secret', { key })).body.secret;
    signer = await new SigningWebhook(() => secret, wallets).start();
    sink = await new NotificationSink(() => secret).start();
    // The deployer sells through the router in the tests.
    await mined(node, dex.owner, dex.weth, erc20().encodeFunctionData('approve', [dex.router, MaxUint256]));
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await signer?.close();
    await sink?.close();
    await node?.stop();
  });

  it('refuses a bad exit with the error object, and one following a buy that has not completed', async () => {
    const wallet = wallets[9]!.address;
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const none = await stack.request('POST', '/v1/exit', { key, body: { chainId: CHAIN_ID, wallet, tokenAddress: token, expiry: expiry() } });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ error: true, name: 'ValidationError' });
    expect(none.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'takeProfit' })]));
    const noEntry = await stack.request('POST', '/v1/exit', { key, body: { chainId: CHAIN_ID, wallet, tokenAddress: token, expiry: expiry(), stopLoss: 0.5 } });
    expect(noEntry.status).toBe(400);
    expect(noEntry.body.details).toEqual([expect.objectContaining({ path: 'stopLoss', message: expect.stringContaining('entry price') })]);
    const bad = await stack.request('POST', '/v1/exit', {
      key,
      body: { chainId: CHAIN_ID, wallet, tokenAddress: token, expiry: expiry(), takeProfit: 0.9, trailingStop: 1.5, amount: '-1', entryPrice: '1' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['amount', 'takeProfit', 'trailingStop']);

    const pendingBuy = await driver.create({ wallet, tokenAddress: token, webhookUrl: signer.url, webhookProtocol: 'tradeinfra' });
    const follows = await stack.request('POST', '/v1/exit', {
      key,
      body: { chainId: CHAIN_ID, wallet, tokenAddress: token, expiry: expiry(), takeProfit: 2, followsIntentId: pendingBuy.id },
    });
    expect(follows.status).toBe(400);
    expect(follows.body.details).toEqual([{ path: 'followsIntentId', message: expect.stringContaining('pending, not completed') }]);
    await stack.request('POST', `/v1/intent/${pendingBuy.id}/cancel`, { key });
  });

  it('take-profit: fires after another account’s buy moves the price past the multiple, and sells once', async () => {
    const wallet = wallets[0]!.address;
    const token = await launchedHeldBy(wallet);
    const exit = await createExit({ wallet, tokenAddress: token, amount: HELD.toString(), entryPrice: SPOT, takeProfit: 1.5 });
    expect(exit).toMatchObject({
      kind: 'exit',
      status: 'pending',
      buyAmount: '0',
      exit: { amount: HELD.toString(), takeProfit: 1.5, entryPrice: SPOT, trigger: null },
    });
    // The watcher prices it at the next block, below the multiple: nothing is sold.
    await mineBlocks(1);
    await eventually('priced', async () => (await get(exit.id)).exit!.highestPrice !== null, 30_000);
    expect((await get(exit.id)).status).toBe('pending');
    const nativeBefore = BigInt(await rpc('eth_getBalance', [wallet, 'latest']));

    await buy(token, 10n * ETH);
    const done = await settle(exit.id);

    expect(done).toMatchObject({ status: 'completed', statusReason: null, exit: { trigger: 'take_profit' } });
    expect(BigInt(done.exit!.price!) * 2n).toBeGreaterThanOrEqual(BigInt(SPOT) * 3n);
    expect(done.statusData).toMatchObject({ trigger: 'take_profit', price: done.exit!.price, txHash: done.txHash });
    const receipt = await rpc('eth_getTransactionReceipt', [done.txHash]);
    expect(receipt.status).toBe('0x1');
    expect(receipt.from.toLowerCase()).toBe(wallet.toLowerCase());
    expect(await dex.balanceOf(token, wallet)).toBe(0n);
    // The native received is what the record says (gas is free: base fee 0, no tip).
    const nativeAfter = BigInt(await rpc('eth_getBalance', [wallet, 'latest']));
    expect((nativeAfter - nativeBefore).toString()).toBe(done.statusData!.amountOut);
    await eventually('completed notified', () => sink.for(exit.id).some((n) => n.event === 'completed'), 30_000);
    const events = sink.for(exit.id);
    expect(events.map((n) => n.event)).toEqual(['created', 'tx_pending', 'completed']);
    expect(events.every((n) => n.verified)).toBe(true);
    expect(events[2]!.data).toMatchObject({ trigger: 'take_profit', price: done.exit!.price });
    // Fired once: more blocks send nothing more.
    const nonce = await rpc('eth_getTransactionCount', [wallet, 'latest']);
    await mineBlocks(2);
    expect(await rpc('eth_getTransactionCount', [wallet, 'pending'])).toBe(nonce);
  });

  it('stop-loss: fires after a large sell, selling the whole balance ("all")', async () => {
    const wallet = wallets[1]!.address;
    const token = await launchedHeldBy(wallet);
    const exit = await createExit({ wallet, tokenAddress: token, entryPrice: SPOT, stopLoss: 0.5, takeProfit: 3 });
    expect(exit.exit).toMatchObject({ amount: 'all', stopLoss: 0.5 });
    await sell(token, POOL_TOKENS);
    const done = await settle(exit.id);
    expect(done).toMatchObject({ status: 'completed', exit: { trigger: 'stop_loss' } });
    expect(BigInt(done.exit!.price!) * 2n).toBeLessThanOrEqual(BigInt(SPOT));
    expect(await dex.balanceOf(token, wallet)).toBe(0n);
  });

  it('trailing stop: follows a rise, then fires on the fall below the highest price', async () => {
    const wallet = wallets[2]!.address;
    const token = await launchedHeldBy(wallet);
    const exit = await createExit({ wallet, tokenAddress: token, trailingStop: 0.3 });
    await mineBlocks(1);
    await eventually('priced', async () => (await get(exit.id)).exit!.highestPrice !== null, 30_000);
    const first = BigInt((await get(exit.id)).exit!.highestPrice!);

    await buy(token, 10n * ETH);
    await eventually('the rise followed', async () => BigInt((await get(exit.id)).exit!.highestPrice!) > 3n * first, 30_000);
    const high = BigInt((await get(exit.id)).exit!.highestPrice!);
    expect((await get(exit.id)).status).toBe('pending');
    // A small fall (under 30 %) keeps it waiting.
    await sell(token, POOL_TOKENS / 20n);
    await mineBlocks(1);
    expect((await get(exit.id)).status).toBe('pending');
    expect((await get(exit.id)).txHash).toBeNull();

    await sell(token, POOL_TOKENS);
    const done = await settle(exit.id);
    expect(done).toMatchObject({ status: 'completed', exit: { trigger: 'trailing_stop' } });
    expect(BigInt(done.exit!.price!) * 10n).toBeLessThanOrEqual(high * 7n);
    expect(BigInt(done.exit!.highestPrice!)).toBe(high);
  });

  it('a honeypot exit is never sent: it waits, noted honeypot', async () => {
    const wallet = wallets[3]!.address;
    const token = await launchedHeldBy(wallet, 'HoneypotToken');
    const nonce = await rpc('eth_getTransactionCount', [wallet, 'latest']);
    // Take-profit already holds (entry price 1 wei): only the sell's revert stops it.
    const exit = await createExit({ wallet, tokenAddress: token, entryPrice: '1', takeProfit: 2 });
    await mineBlocks(1);
    await eventually('noted honeypot', async () => (await get(exit.id)).statusReason === 'honeypot', 30_000);
    await mineBlocks(2);
    const record = await get(exit.id);
    expect(record).toMatchObject({ status: 'pending', statusReason: 'honeypot', txHash: null, exit: { trigger: null } });
    expect(await rpc('eth_getTransactionCount', [wallet, 'pending'])).toBe(nonce);
    expect(signer.received.some((r) => r.request.intentId === exit.id)).toBe(false);
  });

  it('cancel and expiry work as for intents', async () => {
    const wallet = wallets[4]!.address;
    const token = await launchedHeldBy(wallet);
    const cancelled = await createExit({ wallet, tokenAddress: token, trailingStop: 0.5 });
    const res = await stack.request<IntentRecord>('POST', `/v1/intent/${cancelled.id}/cancel`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', kind: 'exit' });

    const expiring = await createExit({ wallet, tokenAddress: token, onRug: true, expiry: expiry(2) });
    await eventually('expired', async () => (await get(expiring.id)).status === 'expired', 30_000);
    await eventually('notified', () => sink.for(expiring.id).some((n) => n.event === 'expired'), 30_000);

    const search = await stack.request<IntentRecord[]>('POST', '/v1/intents/search', { key, body: { addresses: [wallet], status: ['cancelled', 'expired'] } });
    expect(search.body.map((r) => r.id).sort()).toEqual([cancelled.id, expiring.id].sort());
  });

  it('a buy with an exit object creates the exit at completion, priced from the buy’s receipt', async () => {
    const wallet = wallets[5]!.address;
    const token = await driver.approvedToken(SUPPLY);
    const buyIntent = await driver.create({
      wallet,
      tokenAddress: token,
      buyAmount: ETH.toString(),
      webhookUrl: signer.url,
      webhookProtocol: 'tradeinfra',
      exit: { takeProfit: 1.5, expiry: expiry() },
    });
    expect(buyIntent.exit).toMatchObject({ takeProfit: 1.5, amount: 'all', entryPrice: null });
    const done = await driver.launchAndSettle(token, [buyIntent], POOL_NATIVE);
    expect(done.get(buyIntent.id)!.status).toBe('completed');

    const found = await stack.request<IntentRecord[]>('POST', '/v1/intents/search', { key, body: { addresses: [wallet], status: ['pending'] } });
    const exit = found.body.find((r) => r.kind === 'exit' && r.exit!.followsIntentId === buyIntent.id)!;
    expect(exit).toMatchObject({ tokenAddress: buyIntent.tokenAddress, webhookUrl: signer.url, exit: { takeProfit: 1.5, amount: 'all' } });
    await mineBlocks(1);
    await eventually('entry measured', async () => (await get(exit.id)).exit!.entryPrice !== null, 30_000);
    // Entry: 1 ETH for what the buy received, per whole token.
    const bought = await dex.balanceOf(token, wallet);
    expect((await get(exit.id)).exit!.entryPrice).toBe(((ETH * ETH) / bought).toString());

    await buy(token, 10n * ETH);
    const sold = await settle(exit.id);
    expect(sold).toMatchObject({ status: 'completed', exit: { trigger: 'take_profit' } });
    expect(await dex.balanceOf(token, wallet)).toBe(0n);
  });
});
