import type { IntentRecord } from '@tradeinfra/contracts';
import { devWallet, eventually, HardhatNode, LocalDex, LocalRelay, mined } from '@tradeinfra/test-support';
import { keccak256 } from 'ethers';
import { Stack } from './harness.js';
import { startExitChain, stopExitChain, type ExitChain } from './execution-support.js';

/**
 * An exit's sell sent as a bundle `[approve, sell]` and not included, then the intent service
 * restarted: the new process sends the same bundle again for the next block, approve included
 * (it is stored with the sell, not held in memory), and it lands.
 */
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const HELD = 10n ** 24n;

describe('exits across a restart of the intent service', () => {
  let node: HardhatNode;
  let dex: LocalDex;
  let stack: Stack;
  let key: string;
  let relay: LocalRelay;
  const wallet = devWallet(4);
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const get = async (id: string) => (await stack.request<IntentRecord>('GET', `/v1/intent/${id}`, { key })).body;

  let chain: ExitChain | undefined;
  beforeAll(async () => {
    // The relay records bundles and builds none: the first one is missed.
    chain = await startExitChain([wallet], { relay: true });
    ({ node, dex, stack, key } = chain);
    relay = chain.relay!;
  }, 180_000);
  afterAll(() => stopExitChain(chain));

  it('sends the missed sell again behind its approve after the restart, and it lands', async () => {
    const token = await dex.deployToken('PlainToken', [10n ** 27n]);
    await dex.launch(token, 10n ** 26n, 10n * ETH);
    await mined(node, dex.owner, token, dex.a.PlainToken!.iface.encodeFunctionData('transfer', [wallet.address, HELD]));
    // Entry at 1 wei per token: take-profit holds at the first block priced.
    const res = await stack.request<IntentRecord>('POST', '/v1/exit', {
      key,
      body: {
        chainId: CHAIN_ID,
        wallet: wallet.address,
        tokenAddress: token,
        entryPrice: '1',
        takeProfit: 2,
        bribe: '0',
        gasTip: '0',
        expiry: Math.floor(Date.now() / 1000) + 3600,
      },
    });
    expect(res.status).toBe(201);
    await rpc('evm_mine');
    const sellHash = await eventually('the sell sent', async () => (await get(res.body.id)).statusData?.txHash ?? undefined, 30_000);
    const first = await relay.waitFor((b) => b.txs.length > 0 && keccak256(b.txs[b.txs.length - 1]!) === sellHash);
    // The wallet had never approved the router: the bundle is its approve, then its sell.
    expect(first.txs).toHaveLength(2);

    await stack.intentReplicas.shift()!.close();
    // The target block passes without the bundle.
    await rpc('evm_mine');
    const missed = BigInt(await rpc<string>('eth_blockNumber'));
    expect(BigInt(first.blockNumber)).toBeLessThanOrEqual(missed);
    await stack.addIntentReplica();

    const again = await relay.waitFor((b) => BigInt(b.blockNumber) > missed && b.txs.length > 0 && keccak256(b.txs[b.txs.length - 1]!) === sellHash, 30_000);
    expect(again.txs).toEqual(first.txs);
    for (const raw of again.txs) await rpc('eth_sendRawTransaction', [raw]);
    await rpc('evm_mine');
    await eventually('the exit settled', async () => (await get(res.body.id)).status !== 'pending', 30_000);
    expect(await get(res.body.id)).toMatchObject({ status: 'completed', exit: { trigger: 'take_profit' } });
    expect(await dex.balanceOf(token, wallet.address)).toBe(0n);
  });
});
