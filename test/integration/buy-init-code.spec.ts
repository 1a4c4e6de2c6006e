import { MaxUint256 } from 'ethers';
import { HardhatNode, LocalDex, mined } from '@tradeinfra/test-support';
import { buyInitCode } from '../../apps/intent-service/src/execution/buy.js';

/**
 * A firstOrFail buy sent behind a launch still pending lands only in the block that gives the
 * pair its first liquidity, whichever block that turns out to be (the launch may wait for a later
 * block than the one it was first seen for): the buy's own code checks the pair, on a real node
 * running Uniswap V2, and reverts (paying neither fee nor bribe) anywhere else.
 */
describe('a firstOrFail buy behind a pending launch, on a real node', () => {
  const SUPPLY = 10n ** 24n;
  const ETH = 10n ** 18n;
  const BRIBE = 10n ** 15n;
  let node: HardhatNode;
  let dex: LocalDex;
  let buyer: string;
  let trader: string;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 1 });
    dex = await LocalDex.deploy(node);
    [, buyer, trader] = (await node.rpc.call<string[]>('eth_accounts')).map((a) => a.toLowerCase());
    await node.rpc.call('evm_setAutomine', [false]);
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
  });

  type Receipt = { status: string; blockNumber: string; gasUsed: string; effectiveGasPrice: string };
  const send = (from: string, to: string | null, data: string, value = 0n) =>
    node.rpc.call<string>('eth_sendTransaction', [{ from, ...(to ? { to } : {}), data, value: `0x${value.toString(16)}`, gas: '0x7a1200' }]);
  const receipt = (hash: string) => node.rpc.call<Receipt>('eth_getTransactionReceipt', [hash]);
  /** The next block, a second later (the test node lets blocks share a timestamp, which this check cannot tell apart). */
  const mine = async () => {
    await node.rpc.call('evm_increaseTime', [1]);
    await node.rpc.call('evm_mine', []);
  };
  const balance = async (who: string) => BigInt(await node.rpc.call<string>('eth_getBalance', [who, 'latest']));
  const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 3600);

  /** A token approved to the router, and the address its pair with WETH will have. */
  async function token(): Promise<{ token: string; pair: string }> {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    await mined(node, dex.owner, token, dex.a.PlainToken!.iface.encodeFunctionData('approve', [dex.router, MaxUint256]));
    return { token, pair: dex.pairAddress(token) };
  }
  const launch = (t: string) =>
    send(dex.owner, dex.router, dex.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [t, SUPPLY / 10n, 0, 0, dex.owner, deadline()]), 5n * ETH);
  const buy = (t: { token: string; pair: string }) =>
    send(
      buyer,
      null,
      buyInitCode({
        router: dex.router,
        wrappedNative: dex.weth,
        token: t.token,
        wallet: buyer,
        swapValue: ETH / 10n,
        amountOutMin: 1n,
        deadline: deadline(),
        fee: 0n,
        feeRecipient: null,
        bribe: BRIBE,
        onlyInBlock: null,
        onlyInLaunchBlockOf: t.pair,
      }),
      ETH / 10n + BRIBE,
    );
  /** What the buy cost its sender beyond gas: nothing when it reverted. */
  const paidBeyondGas = async (hash: string, before: bigint) => {
    const r = await receipt(hash);
    return before - (await balance(buyer)) - BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
  };

  it('buys right behind the launch in the launch block', async () => {
    const t = await token();
    const launched = await launch(t.token);
    const bought = await buy(t);
    await mine();
    const [l, b] = await Promise.all([receipt(launched), receipt(bought)]);
    expect(l.status).toBe('0x1');
    expect(b).toMatchObject({ status: '0x1', blockNumber: l.blockNumber });
    expect(await dex.balanceOf(t.token, buyer)).toBeGreaterThan(0n);
  });

  it('reverts in the block after the launch, paying neither the swap, the fee nor the bribe', async () => {
    const t = await token();
    await launch(t.token);
    await mine();
    const before = await balance(buyer);
    const bought = await buy(t);
    await mine();
    expect((await receipt(bought)).status).toBe('0x0');
    expect(await paidBeyondGas(bought, before)).toBe(0n);
    expect(await dex.balanceOf(t.token, buyer)).toBe(0n);
  });

  it('reverts in a later block where someone traded the pair first (its last update is then in this block)', async () => {
    const t = await token();
    await launch(t.token);
    await mine();
    const swap = dex.a.UniswapV2Router02!.iface.encodeFunctionData('swapExactETHForTokensSupportingFeeOnTransferTokens', [
      0,
      [dex.weth, t.token],
      trader,
      deadline(),
    ]);
    const traded = await send(trader, dex.router, swap, ETH / 100n);
    const bought = await buy(t);
    await mine();
    const [tr, b] = await Promise.all([receipt(traded), receipt(bought)]);
    expect(tr.status).toBe('0x1');
    expect(b).toMatchObject({ status: '0x0', blockNumber: tr.blockNumber });
  });

  it('reverts when the launch has not come: no pair, or a pair without liquidity', async () => {
    const t = await token();
    const alone = await buy(t);
    await mine();
    expect((await receipt(alone)).status).toBe('0x0');
    await mined(node, dex.owner, dex.factory, dex.a.UniswapV2Factory!.iface.encodeFunctionData('createPair', [t.token, dex.weth]));
    expect(await dex.pairOf(t.token)).toBe(t.pair);
    const empty = await buy(t);
    await mine();
    expect((await receipt(empty)).status).toBe('0x0');
  });
});
