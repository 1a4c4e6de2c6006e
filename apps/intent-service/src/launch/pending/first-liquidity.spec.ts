import { MaxUint256 } from 'ethers';
import { HardhatNode, LocalDex, mined } from '@tradeinfra/test-support';
import { firstLiquidity, type LogLike } from './first-liquidity.js';

/** Logs of real Uniswap V2 launches on a local node, read the way a simulation of the pending transaction returns them. */
describe('firstLiquidity on the logs of real launches', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  const SUPPLY = 10n ** 24n;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337 });
    dex = await LocalDex.deploy(node);
  }, 120_000);
  afterAll(() => node?.stop());

  const logsOf = async (hash: string) => (await node.rpc.call<{ logs: LogLike[] }>('eth_getTransactionReceipt', [hash])).logs;
  const erc20 = () => dex.a.PlainToken!.iface;
  const router = () => dex.a.UniswapV2Router02!.iface;
  const addLiquidity = async (token: string, amount: bigint, native: bigint) => {
    await mined(node, dex.owner, token, erc20().encodeFunctionData('approve', [dex.router, MaxUint256]));
    const data = router().encodeFunctionData('addLiquidityETH', [token, amount, 0, 0, dex.owner, Math.floor(Date.now() / 1000) + 3600]);
    return logsOf((await mined(node, dex.owner, dex.router, data, native)).transactionHash);
  };
  const watching = (...tokens: string[]) => ({ factory: dex.factory, tokens: new Set(tokens) });

  it('finds the launch of a watched token in addLiquidityETH, with the reserves it leaves, and nothing in a later top-up', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const launch = await addLiquidity(token, SUPPLY / 10n, 5n * 10n ** 18n);
    const pair = await dex.pairOf(token);
    expect(firstLiquidity(launch, watching(token))).toEqual([{ token, pair, quote: dex.weth, tokenReserve: SUPPLY / 10n, quoteReserve: 5n * 10n ** 18n }]);
    // Only watched tokens count.
    expect(firstLiquidity(launch, watching('0x000000000000000000000000000000000000beef'))).toEqual([]);
    // More liquidity later mints again, but it is not a launch.
    const topUp = await addLiquidity(token, SUPPLY / 100n, 5n * 10n ** 17n);
    expect(firstLiquidity(topUp, watching(token), new Map([[pair, [token, dex.weth] as const]]))).toEqual([]);
  });

  it('finds the first liquidity of a pair created in an earlier transaction when the pair is known', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    const factory = dex.a.UniswapV2Factory!.iface;
    await mined(node, dex.owner, dex.factory, factory.encodeFunctionData('createPair', [token, dex.weth]));
    const pair = await dex.pairOf(token);
    const launch = await addLiquidity(token, SUPPLY / 2n, 10n ** 18n);
    // Without knowing the pair, its logs name no tokens; with it, the launch is found.
    expect(firstLiquidity(launch, watching(token))).toEqual([]);
    const [token0, token1] = token < dex.weth ? [token, dex.weth] : [dex.weth, token];
    expect(firstLiquidity(launch, watching(token), new Map([[pair, [token0, token1] as const]]))).toEqual([
      { token, pair, quote: dex.weth, tokenReserve: SUPPLY / 2n, quoteReserve: 10n ** 18n },
    ]);
  });
});
