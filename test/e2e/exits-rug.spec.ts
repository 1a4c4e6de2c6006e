import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, LocalRelay, mined } from '@tradeinfra/test-support';
import { Interface, keccak256, MaxUint256 } from 'ethers';
import { Stack } from './harness.js';
import { startExitChain, stopExitChain, type ExitChain } from './execution-support.js';

/**
 * Anti-rug on a local chain (automine off, the mempool followed over the node's WebSocket, a
 * LocalRelay as the relay): the deployer's pending `removeLiquidityETH` is recognised by
 * simulation, and the onRug exits' sells go to the relay as `[sells…, rug]`; a harmless pending
 * transaction touching the token (a buy) fires nothing. The test plays the builder: it builds the
 * bundle as sent, in one block.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;
const HELD = 10n ** 24n;

describe('anti-rug: exits sell ahead of a pending liquidity removal', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let relay: LocalRelay;
  const wallets = Array.from({ length: 3 }, (_, i) => devWallet(i + 4));
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;
  const get = async (id: string) => (await stack.request<IntentRecord>('GET', `/v1/intent/${id}`, { key })).body;

  let chain: ExitChain | undefined;
  beforeAll(async () => {
    chain = await startExitChain(wallets, { relay: true });
    ({ node, dex, stack, key } = chain);
    relay = chain.relay!;
  }, 180_000);
  afterAll(() => stopExitChain(chain));

  it('lands the sells in the rug’s block, ahead of it, and the wallets keep the native value', async () => {
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    await dex.launch(token, 10n ** 26n, 10n * ETH);
    const erc20 = dex.a.PlainToken!.iface;
    const exits: IntentRecord[] = [];
    for (const [i, w] of wallets.slice(0, 2).entries()) {
      await mined(node, dex.owner, token, erc20.encodeFunctionData('transfer', [w.address, HELD]));
      const res = await stack.request<IntentRecord>('POST', '/v1/exit', {
        key,
        body: { chainId: CHAIN_ID, wallet: w.address, tokenAddress: token, onRug: true, bribe: String(1000 * (i + 1)), gasTip: '0', expiry: expiry() },
      });
      expect(res.status).toBe(201);
      exits.push(res.body);
    }
    // Priced at a block: the watcher knows what a sale gives before the rug.
    await rpc('evm_mine');
    await eventually('priced', async () => (await Promise.all(exits.map((e) => get(e.id)))).every((r) => r.exit!.highestPrice !== null), 30_000);
    const nativeBefore = await Promise.all(wallets.slice(0, 2).map(async (w) => BigInt(await rpc('eth_getBalance', [w.address, 'latest']))));

    // The rug: the deployer removes all its liquidity (pending, not mined).
    const pair = await dex.pairOf(token);
    const lp = await dex.balanceOf(pair, dex.owner);
    await mined(node, dex.owner, pair, erc20.encodeFunctionData('approve', [dex.router, MaxUint256]));
    const router = dex.a.UniswapV2Router02!.iface as Interface;
    const rugHash = await rpc<string>('eth_sendTransaction', [
      { from: dex.owner, to: dex.router, data: router.encodeFunctionData('removeLiquidityETH', [token, lp, 0, 0, dex.owner, expiry()]), gas: '0x7a1200' },
    ]);

    const bundle = await relay.waitFor((b) => b.txs.length > 0 && keccak256(b.txs[b.txs.length - 1]!) === rugHash);
    const head = BigInt(await rpc<string>('eth_blockNumber'));
    expect(BigInt(bundle.blockNumber)).toBe(head + 1n);
    const backup = await relay.waitFor((b) => BigInt(b.blockNumber) === head + 2n && keccak256(b.txs[b.txs.length - 1]!) === rugHash);
    expect(backup.txs).toEqual(bundle.txs);
    // Each wallet: approve, then sell; the higher bribe first; the rug last.
    expect(bundle.txs).toHaveLength(5);

    // The builder builds the bundle as sent: the rug leaves the pool and comes back behind the sells.
    await rpc('hardhat_dropTransaction', [rugHash]);
    for (const raw of bundle.txs) await rpc('eth_sendRawTransaction', [raw]);
    await rpc('evm_mine');

    const receipts = await Promise.all(bundle.txs.map((raw) => rpc('eth_getTransactionReceipt', [keccak256(raw)])));
    expect(receipts.every((r) => r.status === '0x1')).toBe(true);
    expect(new Set(receipts.map((r) => r.blockNumber)).size).toBe(1);
    expect(receipts.map((r) => Number(r.transactionIndex))).toEqual([0, 1, 2, 3, 4]);
    expect(receipts[0]!.from.toLowerCase()).toBe(wallets[1]!.address.toLowerCase());

    for (const [i, exit] of exits.entries()) {
      await eventually(`exit ${i} settled`, async () => (await get(exit.id)).status !== 'pending', 30_000);
      const done = await get(exit.id);
      expect(done).toMatchObject({ status: 'completed', exit: { trigger: 'on_rug' }, statusData: { trigger: 'on_rug' } });
      expect(await dex.balanceOf(token, wallets[i]!.address)).toBe(0n);
      const gained = BigInt(await rpc('eth_getBalance', [wallets[i]!.address, 'latest'])) - nativeBefore[i]!;
      // What the sell gave, less the gas of its approve and sell (the bribe is paid as priority fee).
      const paid = receipts
        .filter((r) => r.from.toLowerCase() === wallets[i]!.address.toLowerCase())
        .reduce((sum, r) => sum + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), 0n);
      expect(paid).toBeGreaterThan(0n);
      expect(gained.toString()).toBe((BigInt(done.statusData!.amountOut!) - paid).toString());
      // About 0.1 ETH for 1 % of a 10 ETH pool: kept, where the emptied pool would have given nothing.
      expect(gained).toBeGreaterThan(ETH / 20n);
    }
    expect(await dex.balanceOf(pair, dex.owner)).toBe(0n);
  });

  it('a harmless pending transaction on the token fires nothing: the sell goes behind it, ahead of the rug that follows', async () => {
    const [holder, buyer] = [wallets[0]!.address, wallets[2]!.address];
    const token = await dex.deployToken('PlainToken', [SUPPLY]);
    await dex.launch(token, 10n ** 26n, 10n * ETH);
    const erc20 = dex.a.PlainToken!.iface;
    const pair = await dex.pairOf(token);
    await mined(node, dex.owner, token, erc20.encodeFunctionData('transfer', [holder, HELD]));
    await mined(node, dex.owner, pair, erc20.encodeFunctionData('approve', [dex.router, MaxUint256]));
    const res = await stack.request<IntentRecord>('POST', '/v1/exit', {
      key,
      body: { chainId: CHAIN_ID, wallet: holder, tokenAddress: token, onRug: true, bribe: '1000', gasTip: '0', expiry: expiry() },
    });
    expect(res.status).toBe(201);
    await rpc('evm_mine');
    await eventually('priced', async () => (await get(res.body.id)).exit!.highestPrice !== null, 30_000);
    const nonceBefore = BigInt(await rpc<string>('eth_getTransactionCount', [holder, 'latest']));

    // Pending, in this order (the pool is first come, first mined): another account's buy through the router, then the rug.
    const router = dex.a.UniswapV2Router02!.iface as Interface;
    const harmless = await rpc<string>('eth_sendTransaction', [
      {
        from: buyer,
        to: dex.router,
        value: `0x${ETH.toString(16)}`,
        data: router.encodeFunctionData('swapExactETHForTokens', [0, [dex.weth, token], buyer, expiry()]),
        gas: '0x7a1200',
      },
    ]);
    const lp = await dex.balanceOf(pair, dex.owner);
    const rugHash = await rpc<string>('eth_sendTransaction', [
      { from: dex.owner, to: dex.router, data: router.encodeFunctionData('removeLiquidityETH', [token, lp, 0, 0, dex.owner, expiry()]), gas: '0x7a1200' },
    ]);

    // The first bundle behind either: had the buy been judged a rug, the sell would go ahead of the buy, and the rug last in the block.
    const last = (txs: string[]) => (txs.length > 0 ? keccak256(txs[txs.length - 1]!) : '');
    const bundle = await relay.waitFor((b) => [harmless, rugHash].includes(last(b.txs)));
    expect(bundle.txs).toHaveLength(3);
    await rpc('hardhat_dropTransaction', [last(bundle.txs)]);
    for (const raw of bundle.txs) await rpc('eth_sendRawTransaction', [raw]);
    await rpc('evm_mine');

    const block = await rpc('eth_getBlockByNumber', ['latest', false]);
    const [approve, sell] = bundle.txs.map((raw) => keccak256(raw));
    expect(block.transactions).toEqual([harmless, approve, sell, rugHash]);
    const receipts = await Promise.all(block.transactions.map((h: string) => rpc('eth_getTransactionReceipt', [h])));
    expect(receipts.map((r) => r.status)).toEqual(['0x1', '0x1', '0x1', '0x1']);
    await eventually('the exit settled', async () => (await get(res.body.id)).status !== 'pending', 30_000);
    expect(await get(res.body.id)).toMatchObject({ status: 'completed', txHash: sell, exit: { trigger: 'on_rug' } });
    // Fired once: no bundle ever ended with the buy, every rug bundle carries the same sell, the wallet sent two transactions.
    expect(relay.bundles.filter((b) => last(b.txs) === harmless)).toEqual([]);
    expect(new Set(relay.bundles.filter((b) => last(b.txs) === rugHash).map((b) => b.txs.join()))).toEqual(new Set([bundle.txs.join()]));
    expect(BigInt(await rpc<string>('eth_getTransactionCount', [holder, 'latest']))).toBe(nonceBefore + 2n);
    expect(await dex.balanceOf(token, holder)).toBe(0n);
  });
});
