import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, LocalRelay, mined } from '@tradeinfra/test-support';
import { keccak256 } from 'ethers';
import { ExitWatcher } from '../../apps/intent-service/src/exits/exit-watcher.js';
import { Stack } from './harness.js';
import { startExitChain, stopExitChain, type ExitChain } from './execution-support.js';

/**
 * Anti-rug beyond liquidity removal, on a local chain (automine off, the mempool followed over
 * the node's WebSocket, a LocalRelay as the relay): a pending tax hike, a block of the holder's
 * wallet and trading switched off, each one call of SwitchToken's plainly named `set(what, who,
 * value)`, are recognised by simulating them before a sale, and the exit's sell lands ahead of
 * them in one block. A block of one holder's wallet sells that holder's exit only. The test plays
 * the builder: it builds the bundle as sent.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const SUPPLY = 10n ** 27n;
const HELD = 10n ** 24n;

describe('anti-rug: a tax hike, a blacklist, trading off', () => {
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

  /** A SwitchToken launched, `wallet` holding HELD with an onRug exit on it, priced at a block. */
  async function guarded(wallet: string): Promise<{ token: string; exit: IntentRecord }> {
    const token = await dex.deployToken('SwitchToken', [SUPPLY]);
    await dex.launch(token, 10n ** 26n, 10n * ETH);
    await mined(node, dex.owner, token, dex.a.SwitchToken!.iface.encodeFunctionData('transfer', [wallet, HELD]));
    const res = await stack.request<IntentRecord>('POST', '/v1/exit', {
      key,
      body: { chainId: CHAIN_ID, wallet, tokenAddress: token, onRug: true, bribe: '1000', gasTip: '0', expiry: expiry() },
    });
    expect(res.status).toBe(201);
    await rpc('evm_mine');
    await eventually('priced', async () => (await get(res.body.id)).exit!.highestPrice !== null, 30_000);
    return { token, exit: res.body };
  }

  /**
   * The owner's `set(what, who, value)` sent pending; the bundle `[approve, sell, rug]` awaited
   * and built in one block. Answers what the wallet gained in native and the rug's receipt.
   */
  async function rugged(token: string, exit: IntentRecord, wallet: string, what: number, who: string, value: bigint) {
    const before = BigInt(await rpc('eth_getBalance', [wallet, 'latest']));
    const data = dex.a.SwitchToken!.iface.encodeFunctionData('set', [what, who, value]);
    const rugHash = await rpc<string>('eth_sendTransaction', [{ from: dex.owner, to: token, data, gas: '0x7a1200' }]);
    const bundle = await relay.waitFor((b) => b.txs.length > 0 && keccak256(b.txs[b.txs.length - 1]!) === rugHash);
    expect(bundle.txs).toHaveLength(3);
    await rpc('hardhat_dropTransaction', [rugHash]);
    for (const raw of bundle.txs) await rpc('eth_sendRawTransaction', [raw]);
    await rpc('evm_mine');
    const receipts = await Promise.all(bundle.txs.map((raw) => rpc('eth_getTransactionReceipt', [keccak256(raw)])));
    expect(receipts.map((r) => r.status)).toEqual(['0x1', '0x1', '0x1']);
    expect(new Set(receipts.map((r) => r.blockNumber)).size).toBe(1);
    expect(receipts.map((r) => r.from.toLowerCase())).toEqual([wallet.toLowerCase(), wallet.toLowerCase(), dex.owner.toLowerCase()]);
    await eventually('the exit settled', async () => (await get(exit.id)).status !== 'pending', 30_000);
    const done = await get(exit.id);
    expect(done).toMatchObject({ status: 'completed', exit: { trigger: 'on_rug' } });
    expect(await dex.balanceOf(token, wallet)).toBe(0n);
    const gained = BigInt(await rpc('eth_getBalance', [wallet, 'latest'])) - before;
    // About 0.1 ETH for 1 % of a 10 ETH pool, less gas: sold before the change, in full.
    expect(gained).toBeGreaterThan(ETH / 20n);
    expect(BigInt(done.statusData!.amountOut!)).toBeGreaterThan(ETH / 20n);
  }

  it('a pending tax hike (0 → 90 %): the sell lands ahead of it, untaxed', async () => {
    const wallet = wallets[0]!.address;
    const { token, exit } = await guarded(wallet);
    await rugged(token, exit, wallet, 0, dex.owner, 9_000n);
    // The change did land, after the sell: the owner now takes 90 % of any transfer.
    expect(BigInt(await rpc('eth_call', [{ to: token, data: dex.a.SwitchToken!.iface.encodeFunctionData('feeBps') }, 'latest']))).toBe(9_000n);
  });

  it('a pending block of the holder’s wallet: the sell lands ahead of it', async () => {
    const wallet = wallets[1]!.address;
    const { token, exit } = await guarded(wallet);
    await rugged(token, exit, wallet, 1, wallet, 0n);
  });

  it('trading switched off, pending: the sell lands ahead of it', async () => {
    const wallet = wallets[2]!.address;
    const { token, exit } = await guarded(wallet);
    await rugged(token, exit, wallet, 2, dex.owner, 0n);
  });

  it('a pending block of a wallet other than the largest holder’s: only its exit sells ahead; the other stays watched, and sells ahead of trading off', async () => {
    const [large, small] = [wallets[0]!.address, wallets[1]!.address];
    const token = await dex.deployToken('SwitchToken', [SUPPLY]);
    await dex.launch(token, 10n ** 26n, 10n * ETH);
    const ids: string[] = [];
    for (const [wallet, held] of [
      [large, 2n * HELD],
      [small, HELD],
    ] as const) {
      await mined(node, dex.owner, token, dex.a.SwitchToken!.iface.encodeFunctionData('transfer', [wallet, held]));
      const res = await stack.request<IntentRecord>('POST', '/v1/exit', {
        key,
        body: { chainId: CHAIN_ID, wallet, tokenAddress: token, onRug: true, bribe: '1000', gasTip: '0', expiry: expiry() },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const [largeExit, smallExit] = ids as [string, string];
    await rpc('evm_mine');
    await eventually('priced', async () => (await Promise.all(ids.map(get))).every((r) => r.exit!.highestPrice !== null), 30_000);
    const largeNonce = await rpc<string>('eth_getTransactionCount', [large, 'latest']);

    /** `set(what, who, 0)` sent pending; the bundle behind it awaited, built in one block; answers the block's transactions' senders. */
    const rugAndBuild = async (what: number, who: string) => {
      const data = dex.a.SwitchToken!.iface.encodeFunctionData('set', [what, who, 0n]);
      const rugHash = await rpc<string>('eth_sendTransaction', [{ from: dex.owner, to: token, data, gas: '0x7a1200' }]);
      const bundle = await relay.waitFor((b) => b.txs.length > 0 && keccak256(b.txs[b.txs.length - 1]!) === rugHash);
      await rpc('hardhat_dropTransaction', [rugHash]);
      for (const raw of bundle.txs) await rpc('eth_sendRawTransaction', [raw]);
      await rpc('evm_mine');
      const block = await rpc('eth_getBlockByNumber', ['latest', true]);
      expect(block.transactions.map((t: { hash: string }) => t.hash)).toEqual(bundle.txs.map((raw) => keccak256(raw)));
      const receipts = await Promise.all(block.transactions.map((t: { hash: string }) => rpc('eth_getTransactionReceipt', [t.hash])));
      expect(receipts.every((r) => r.status === '0x1')).toBe(true);
      return { number: BigInt(block.number), from: block.transactions.map((t: { from: string }) => t.from.toLowerCase()) };
    };

    // The small holder blocked: its approve and sell, then the block; the large holder's sale was never in danger.
    const blocked = await rugAndBuild(1, small);
    expect(blocked.from).toEqual([small.toLowerCase(), small.toLowerCase(), dex.owner.toLowerCase()]);
    await eventually('the small exit settled', async () => (await get(smallExit)).status !== 'pending', 30_000);
    expect(await get(smallExit)).toMatchObject({ status: 'completed', exit: { trigger: 'on_rug' } });
    expect(await dex.balanceOf(token, small)).toBe(0n);
    expect(await get(largeExit)).toMatchObject({ status: 'pending', txHash: null, exit: { trigger: null } });
    expect(await dex.balanceOf(token, large)).toBe(2n * HELD);
    expect(await rpc('eth_getTransactionCount', [large, 'pending'])).toBe(largeNonce);

    // Still guarded: once the watcher has priced the new block, trading switched off sells it ahead.
    await eventually('the new block evaluated', () => stack.intentReplicas[0]!.get(ExitWatcher).evaluatedHead(CHAIN_ID) >= blocked.number, 30_000);
    const off = await rugAndBuild(2, dex.owner);
    expect(off.from).toEqual([large.toLowerCase(), large.toLowerCase(), dex.owner.toLowerCase()]);
    await eventually('the large exit settled', async () => (await get(largeExit)).status !== 'pending', 30_000);
    expect(await get(largeExit)).toMatchObject({ status: 'completed', exit: { trigger: 'on_rug' } });
    expect(await dex.balanceOf(token, large)).toBe(0n);
  });
});
