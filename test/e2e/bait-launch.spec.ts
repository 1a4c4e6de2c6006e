import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex } from '@tradeinfra/test-support';
import { LaunchDriver, NotificationSink, startMempoolStack } from './execution-support.js';
import type { Stack } from './harness.js';

/**
 * Bait launches, as anti-sniper deployers play them, on a local chain that does not automine and
 * mines its pool in arrival order, with no relays: the buys go to the node's pool right behind
 * the pending launch. The deployer then replaces the launch (the same nonce, a self-transfer
 * paying more) or it is dropped, and launches for real later. The buys left in the pool are mined
 * and revert at their first check (no pair): the wallets pay that gas and nothing else, the
 * intents wait again, say why, and buy behind the real launch, in its block.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const GWEI = 10n ** 9n;
const SUPPLY = 10n ** 27n;

interface Receipt {
  status: string;
  blockNumber: string;
  gasUsed: string;
  effectiveGasPrice: string;
}

describe('bait launches: a pending launch replaced or dropped before its block', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let secret = '';
  let driver: LaunchDriver;
  let sink: NotificationSink;
  const wallets = Array.from({ length: 6 }, (_, i) => devWallet(i + 1));
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: CHAIN_ID });
    dex = await LocalDex.deploy(node);
    await rpc('evm_setAutomine', [false]);
    stack = await startMempoolStack(node, dex, wallets, { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
    key = await stack.createKey();
    driver = new LaunchDriver(stack, node, dex, () => key, SUPPLY / 10n);
    secret = (await stack.request('GET', '/v1/intents/notifications/secret', { key })).body.secret;
    sink = await new NotificationSink(() => secret).start();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await sink?.close();
    await node?.stop();
  });

  /** An intent paying a 1 gwei tip (so a reverted buy costs something visible), notified to the sink. */
  const create = (wallet: string, token: string, body: Record<string, unknown> = {}) =>
    driver.create({ wallet, tokenAddress: token, bribe: '1000', gasTip: GWEI.toString(), notificationWebhookUrl: sink.url, ...body });

  /** Each token's launch deadline (the same for every launch of it: a launch sent again is the very same transaction). */
  const deadlines = new Map<string, number>();
  const addLiquidityETH = (token: string) => {
    if (!deadlines.has(token)) deadlines.set(token, expiry());
    return dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, SUPPLY / 10n, 0, 0, dex.owner, deadlines.get(token)]);
  };

  /** The deployer's launch, pending, at its next nonce, paying 1 gwei. */
  async function launch(token: string): Promise<string> {
    const fee = `0x${GWEI.toString(16)}`;
    return rpc<string>('eth_sendTransaction', [
      {
        from: dex.owner,
        to: dex.router,
        data: addLiquidityETH(token),
        value: `0x${ETH.toString(16)}`,
        gas: '0x7a1200',
        maxFeePerGas: fee,
        maxPriorityFeePerGas: fee,
      },
    ]);
  }

  const balance = async (address: string) => BigInt(await rpc<string>('eth_getBalance', [address, 'latest']));
  const receipt = (hash: string) => rpc<Receipt | null>('eth_getTransactionReceipt', [hash]);
  const submittedBuy = async (id: string) => (await driver.get(id)).txHash!;
  const latestBlock = () => rpc<{ number: string; transactions: string[] }>('eth_getBlockByNumber', ['latest', false]);

  /** Waits until every intent is pending again with `reason`, and answers their records. */
  async function waitingAgain(intents: IntentRecord[], reason: string): Promise<IntentRecord[]> {
    await eventually(`every intent waiting again (${reason})`, async () => {
      const now = await Promise.all(intents.map((i) => driver.get(i.id)));
      return now.every((r) => r.status === 'pending' && r.txHash === null && r.statusReason === reason);
    });
    return Promise.all(intents.map((i) => driver.get(i.id)));
  }

  /**
   * The bait played out: intents on a fresh token, a pending launch, the buys in the pool behind
   * it, then `bait` (replace or drop it) and one block. Answers what a user sees: the records,
   * each wallet's cost, and the guards' receipts.
   */
  async function baited(bait: (launchTx: string, nonce: string) => Promise<void>, bodies: Record<string, unknown>[], firstWallet: number) {
    const token = await driver.approvedToken(SUPPLY);
    const intents = await Promise.all(bodies.map((body, i) => create(wallets[firstWallet + i]!.address, token, body)));
    await driver.watchingPending(CHAIN_ID, token);
    const before = await Promise.all(intents.map((i) => balance(i.wallet)));
    const nonce = await rpc<string>('eth_getTransactionCount', [dex.owner, 'pending']);
    const bait0 = await launch(token);
    await eventually('every buy in the pool behind the launch', () => driver.decided(intents.map((i) => i.id)), 30_000);
    const guards = await Promise.all(intents.map((i) => submittedBuy(i.id)));
    await bait(bait0, nonce);
    await rpc('evm_mine');
    return { token, intents, before, bait: bait0, guards };
  }

  /** The real launch, pending; mines its block once every buy is behind it; answers the records and the block. */
  async function launchForReal(token: string, intents: IntentRecord[]) {
    await driver.watchingPending(CHAIN_ID, token);
    const real = await launch(token);
    const ids = intents.map((i) => i.id);
    await eventually('every buy behind the real launch', () => driver.decided(ids), 30_000);
    await rpc('evm_mine');
    await eventually('every outcome recorded', () => driver.terminal(ids), 30_000);
    return { real, block: await latestBlock(), records: await Promise.all(ids.map((id) => driver.get(id))) };
  }

  it('a launch replaced by a self-transfer: the guards revert and cost only their gas, the intents wait again (launch_replaced), then both complete in the real launch’s block', async () => {
    let replacement = '';
    const { token, intents, before, bait, guards } = await baited(
      async (_launch, nonce) => {
        const fee = `0x${(2n * GWEI).toString(16)}`;
        replacement = await rpc<string>('eth_sendTransaction', [
          { from: dex.owner, to: dex.owner, value: '0x0', nonce, gas: '0x5208', maxFeePerGas: fee, maxPriorityFeePerGas: fee },
        ]);
      },
      [{}, { bribe: '500' }],
      0,
    );
    expect(await rpc('eth_getTransactionByHash', [bait])).toBeNull();
    // The replacement took the launch's nonce (a FIFO pool puts it last): the guards ran with no pair.
    expect([...(await latestBlock()).transactions].sort()).toEqual([replacement, ...guards].sort());
    const back = await waitingAgain(intents, 'launch_replaced');
    for (const [i, record] of back.entries()) {
      expect(record).toMatchObject({ launch: null, statusData: { txHash: guards[i], launchTxHash: bait } });
      // The guard reverted at its first check: the wallet paid its gas, and no value, fee or bribe.
      const guard = (await receipt(guards[i]!))!;
      expect(guard.status).toBe('0x0');
      expect(await balance(record.wallet)).toBe(before[i]! - BigInt(guard.gasUsed) * BigInt(guard.effectiveGasPrice));
      expect(await dex.balanceOf(token, record.wallet)).toBe(0n);
      // The notification says why.
      await eventually('the waiting notification', () => sink.for(record.id).some((n) => n.type === 'intent_waiting'));
      const waiting = sink.for(record.id).find((n) => n.type === 'intent_waiting')!;
      expect(waiting).toMatchObject({ verified: true, reason: 'launch_replaced', status: 'pending', data: { txHash: guards[i], launchTxHash: bait } });
    }
    const { real, block, records } = await launchForReal(token, intents);
    expect(block.transactions).toEqual([real, ...records.map((r) => r.txHash)]);
    for (const record of records) {
      expect(record).toMatchObject({ status: 'completed', launch: { type: 'public_transaction', txHash: real, blockNumber: Number(block.number) } });
      expect(await dex.balanceOf(token, record.wallet)).toBeGreaterThan(0n);
    }
  }, 120_000);

  it('a launch dropped from the pool, never mined: the guards revert, the intents wait again (launch_dropped), and the same launch sent again later is bought in its block', async () => {
    const { token, intents, bait, guards } = await baited(
      async (launchTx) => {
        expect(await rpc('hardhat_dropTransaction', [launchTx])).toBe(true);
      },
      [{}, {}],
      2,
    );
    expect((await latestBlock()).transactions).toEqual(guards);
    const back = await waitingAgain(intents, 'launch_dropped');
    back.forEach((record, i) => expect(record.statusData).toEqual({ txHash: guards[i], launchTxHash: bait }));
    // The deployer sends the very same launch again (its nonce is still free): it is recognised again.
    const { real, block, records } = await launchForReal(token, intents);
    expect(real).toBe(bait);
    expect(block.transactions).toEqual([real, ...records.map((r) => r.txHash)]);
    for (const record of records) expect(record).toMatchObject({ status: 'completed', launch: { txHash: real, blockNumber: Number(block.number) } });
  }, 120_000);

  it('firstOrFail behind a replaced launch keeps its rule: it waits again, and at the real launch it lands only in that launch’s block (a plain intent beside it is bought in the next)', async () => {
    const { token, intents } = await baited(
      async (_launch, nonce) => {
        const fee = `0x${(2n * GWEI).toString(16)}`;
        await rpc('eth_sendTransaction', [
          { from: dex.owner, to: dex.owner, value: '0x0', nonce, gas: '0x5208', maxFeePerGas: fee, maxPriorityFeePerGas: fee },
        ]);
      },
      [{ firstOrFail: true }, {}],
      4,
    );
    const [fof, plain] = await waitingAgain(intents, 'launch_replaced');
    expect(fof!.firstOrFail).toBe(true);
    await driver.watchingPending(CHAIN_ID, token);
    const real = await launch(token);
    await eventually('both buys behind the real launch', () => driver.decided(intents.map((i) => i.id)), 30_000);
    // The builder leaves both buys out of the launch's block.
    const buys = await Promise.all(intents.map((i) => submittedBuy(i.id)));
    for (const b of buys) expect(await rpc('hardhat_dropTransaction', [b])).toBe(true);
    await rpc('evm_mine');
    const launchBlock = await latestBlock();
    expect(launchBlock.transactions).toEqual([real]);
    await eventually('firstOrFail failed not_included', async () => (await driver.get(fof!.id)).status === 'failed');
    expect(await driver.get(fof!.id)).toMatchObject({ statusReason: 'not_included', launch: { txHash: real, blockNumber: Number(launchBlock.number) } });
    // The plain one is sent again for the next block and lands there.
    await eventually('the plain buy sent again', async () => (await rpc('eth_getTransactionByHash', [buys[1]])) !== null, 30_000);
    await rpc('evm_mine');
    await eventually('the plain intent completed', async () => (await driver.get(plain!.id)).status === 'completed', 30_000);
    expect(BigInt((await receipt(buys[1]!))!.blockNumber)).toBe(BigInt(launchBlock.number) + 1n);
    expect(await dex.balanceOf(token, fof!.wallet)).toBe(0n);
  }, 120_000);
});
