import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, mined } from '@tradeinfra/test-support';
import { MaxUint256 } from 'ethers';
import { Stack } from './harness.js';
import { startExitChain, stopExitChain, type ExitChain } from './execution-support.js';

/**
 * Anti-rug on a chain with no relay configured (docs/design/exits.md): the sells cannot be put in
 * a bundle ahead of the rug, so they go to the node paying at least one wei per gas more priority
 * fee than the rug. On a node whose blocks order the pool by priority fee (as public mempools
 * do; automine off), they land in the rug's block, ahead of it.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const GWEI = 10n ** 9n;
const HELD = 10n ** 24n;

describe('anti-rug without a relay: the sells outbid the rug at the node', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  const wallet = devWallet(4);
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;
  const get = async (id: string) => (await stack.request<IntentRecord>('GET', `/v1/intent/${id}`, { key })).body;

  let chain: ExitChain | undefined;
  beforeAll(async () => {
    chain = await startExitChain([wallet], { relay: false, mempoolOrder: 'priority' });
    ({ node, dex, stack, key } = chain);
  }, 180_000);
  afterAll(() => stopExitChain(chain));

  it('sends approve and sell to the node over the rug’s priority fee; they are mined in its block, ahead of it', async () => {
    const token = await dex.deployToken('PlainToken', [10n ** 27n]);
    await dex.launch(token, 10n ** 26n, 10n * ETH);
    const erc20 = dex.a.PlainToken!.iface;
    await mined(node, dex.owner, token, erc20.encodeFunctionData('transfer', [wallet.address, HELD]));
    const pair = await dex.pairOf(token);
    const lp = await dex.balanceOf(pair, dex.owner);
    await mined(node, dex.owner, pair, erc20.encodeFunctionData('approve', [dex.router, MaxUint256]));
    // No bribe, no tip of its own: what it pays over the rug is the outbidding alone.
    const res = await stack.request<IntentRecord>('POST', '/v1/exit', {
      key,
      body: { chainId: CHAIN_ID, wallet: wallet.address, tokenAddress: token, onRug: true, bribe: '0', gasTip: '0', expiry: expiry() },
    });
    expect(res.status).toBe(201);
    await rpc('evm_mine');
    await eventually('priced', async () => (await get(res.body.id)).exit!.highestPrice !== null, 30_000);
    const before = BigInt(await rpc('eth_getBalance', [wallet.address, 'latest']));

    const data = dex.a.UniswapV2Router02!.iface.encodeFunctionData('removeLiquidityETH', [token, lp, 0, 0, dex.owner, expiry()]);
    const rugTip = 2n * GWEI;
    const rugHash = await rpc<string>('eth_sendTransaction', [
      {
        from: dex.owner,
        to: dex.router,
        data,
        gas: '0x7a1200',
        maxFeePerGas: `0x${(10n * GWEI).toString(16)}`,
        maxPriorityFeePerGas: `0x${rugTip.toString(16)}`,
      },
    ]);
    // The sell is in the node's pool (the exit marked submitted with its hash) before the block is mined.
    const sellHash = await eventually('the sell sent', async () => (await get(res.body.id)).statusData?.txHash ?? undefined, 30_000);
    const sell = await eventually(
      'the sell in the pool',
      async () => (await rpc<{ maxPriorityFeePerGas: string } | null>('eth_getTransactionByHash', [sellHash])) ?? undefined,
    );
    expect(BigInt(sell.maxPriorityFeePerGas)).toBe(rugTip + 1n);
    await rpc('evm_mine');

    const block = await rpc('eth_getBlockByNumber', ['latest', true]);
    const order = (block.transactions as { hash: string; from: string }[]).map((t) => (t.hash === rugHash ? 'rug' : t.from.toLowerCase()));
    expect(order).toEqual([wallet.address.toLowerCase(), wallet.address.toLowerCase(), 'rug']);
    await eventually('the exit settled', async () => (await get(res.body.id)).status !== 'pending', 30_000);
    expect(await get(res.body.id)).toMatchObject({ status: 'completed', exit: { trigger: 'on_rug' } });
    const rug = await rpc('eth_getTransactionReceipt', [rugHash]);
    expect(rug.status).toBe('0x1');
    // About 0.1 ETH for 1 % of a 10 ETH pool, less gas at ~2 gwei.
    expect(BigInt(await rpc('eth_getBalance', [wallet.address, 'latest'])) - before).toBeGreaterThan(ETH / 20n);
  });
});
