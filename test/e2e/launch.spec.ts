import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, HardhatNode } from '@tradeinfra/test-support';
import { Interface } from 'ethers';
import { intentBody, Stack } from './harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const artefact = (path: string) => JSON.parse(readFileSync(join(ROOT, 'node_modules', path), 'utf8')) as { abi: unknown[]; bytecode: string };
const WETH = artefact('@uniswap/v2-periphery/build/WETH9.json');
const FACTORY = artefact('@uniswap/v2-core/build/UniswapV2Factory.json');
const ERC20 = artefact('@uniswap/v2-core/build/ERC20.json');
const PAIR = artefact('@uniswap/v2-core/build/UniswapV2Pair.json');
const [weth, factory, erc20, pair] = [WETH, FACTORY, ERC20, PAIR].map((a) => new Interface(a.abi as never));

describe('launch watcher on a local chain', () => {
  let node: HardhatNode;
  let stack: Stack;
  let key: string;
  let from: string;
  const addresses: Record<string, string> = {};

  async function send(to: string | null, data: string, value = 0n): Promise<{ blockNumber: bigint; contractAddress: string | null }> {
    const hash = await node.rpc.call<string>('eth_sendTransaction', [{ from, ...(to ? { to } : {}), data, value: `0x${value.toString(16)}`, gas: '0x7a1200' }]);
    const receipt = await node.rpc.call<{ status: string; blockNumber: string; contractAddress: string | null }>('eth_getTransactionReceipt', [hash]);
    expect(receipt.status).toBe('0x1');
    return { blockNumber: BigInt(receipt.blockNumber), contractAddress: receipt.contractAddress };
  }
  const deploy = async (bytecode: string, args = '') => (await send(null, `0x${bytecode.replace(/^0x/, '')}${args}`)).contractAddress!.toLowerCase();

  /** Creates the token/WETH pair and adds its first liquidity; returns the Mint's block. */
  async function launch(token: string): Promise<bigint> {
    await send(addresses.factory!, factory.encodeFunctionData('createPair', [token, addresses.weth]));
    const pairAddress = (
      factory.decodeFunctionResult(
        'getPair',
        await node.rpc.call<string>('eth_call', [{ to: addresses.factory, data: factory.encodeFunctionData('getPair', [token, addresses.weth]) }, 'latest']),
      )[0] as string
    ).toLowerCase();
    await send(addresses.weth!, weth.encodeFunctionData('deposit'), 10n ** 18n);
    await send(addresses.weth!, weth.encodeFunctionData('transfer', [pairAddress, 10n ** 18n]));
    await send(token, erc20.encodeFunctionData('transfer', [pairAddress, 10n ** 21n]));
    return (await send(pairAddress, pair.encodeFunctionData('mint', [from]))).blockNumber;
  }
  const launches = () => stack.db.query<{ token: string; block_number: string }>('SELECT token, block_number FROM intent.launches ORDER BY token');
  const cursor = async () => BigInt((await stack.db.query<{ n: string | null }>('SELECT max(number)::text AS n FROM intent.chain_blocks'))[0]!.n ?? '-1');
  const head = async () => BigInt(await node.rpc.call<string>('eth_blockNumber', []));

  beforeAll(async () => {
    node = await HardhatNode.start();
    [from] = await node.rpc.call<string[]>('eth_accounts', []);
    addresses.weth = await deploy(WETH.bytecode);
    addresses.factory = await deploy(FACTORY.bytecode, from!.slice(2).padStart(64, '0'));
    addresses.tokenA = await deploy(ERC20.bytecode, (10n ** 24n).toString(16).padStart(64, '0'));
    addresses.tokenB = await deploy(ERC20.bytecode, (10n ** 24n).toString(16).padStart(64, '0'));
    addresses.tokenC = await deploy(ERC20.bytecode, (10n ** 24n).toString(16).padStart(64, '0'));
    addresses.tokenD = await deploy(ERC20.bytecode, (10n ** 24n).toString(16).padStart(64, '0'));
    stack = await Stack.start({
      CHAIN_IDS: '1',
      RPC_URL_1: node.url,
      HARDFORK_1: 'prague',
      DEX_FACTORY_1: addresses.factory,
      WRAPPED_NATIVE_1: addresses.weth,
      // Blocks arrive over the WebSocket subscription; the poll would come only once a minute.
      WS_URL_1: node.url.replace('http', 'ws'),
      LAUNCH_POLL_INTERVAL_MS: '60000',
    });
    key = await stack.createKey();
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await node?.stop();
  });

  it('records a pending token’s first liquidity in the block it happened', async () => {
    expect((await stack.request('POST', '/v1/intent', { key, body: intentBody({ tokenAddress: addresses.tokenA }) })).status).toBe(201);
    await eventually('watcher following the chain', async () => (await cursor()) >= (await head()));
    const mintBlock = await launch(addresses.tokenA!);
    await eventually('launch recorded', async () => (await launches()).length === 1);
    expect(await launches()).toEqual([{ token: addresses.tokenA, block_number: mintBlock.toString() }]);
  });

  it('resumes after a restart from its stored cursor, without repeating a block', async () => {
    await stack.intentReplicas.shift()!.close();
    const stoppedAt = await cursor();
    for (let i = 0; i < 3; i++) await node.rpc.call('evm_mine', []);
    await stack.addIntentReplica();
    await eventually('caught up', async () => (await cursor()) >= (await head()));
    expect(await cursor()).toBeGreaterThan(stoppedAt);
    expect(await launches()).toHaveLength(1);
  });

  it('undoes a launch whose blocks a reorg removed', async () => {
    expect((await stack.request('POST', '/v1/intent', { key, body: intentBody({ tokenAddress: addresses.tokenB }) })).status).toBe(201);
    await eventually('caught up', async () => (await cursor()) >= (await head()));
    const snapshot = await node.rpc.call<string>('evm_snapshot', []);
    await launch(addresses.tokenB!);
    await eventually('launch of B recorded', async () => (await launches()).some((l) => l.token === addresses.tokenB));
    await node.rpc.call('evm_revert', [snapshot]);
    for (let i = 0; i < 8; i++) await node.rpc.call('evm_mine', []);
    await eventually('reorg undone', async () => !(await launches()).some((l) => l.token === addresses.tokenB), 15_000);
    expect((await launches()).map((l) => l.token)).toEqual([addresses.tokenA]);
    await eventually('following the new chain', async () => (await cursor()) >= (await head()));
  });

  it('undoes a launch in the newest block once a block of the same height replaced it, as the next block comes', async () => {
    expect((await stack.request('POST', '/v1/intent', { key, body: intentBody({ tokenAddress: addresses.tokenD }) })).status).toBe(201);
    await eventually('caught up', async () => (await cursor()) >= (await head()));
    const snapshot = await node.rpc.call<string>('evm_snapshot', []);
    const before = await head();
    await launch(addresses.tokenD!);
    const tip = await head();
    await eventually('launch of D recorded', async () => (await launches()).some((l) => l.token === addresses.tokenD));
    await node.rpc.call('evm_revert', [snapshot]);
    // Other blocks up to the same height, then the next one.
    for (let n = before; n < tip; n++) await node.rpc.call('evm_mine', []);
    expect(await head()).toBe(tip);
    await node.rpc.call('evm_mine', []);
    await eventually('replaced launch undone', async () => !(await launches()).some((l) => l.token === addresses.tokenD), 15_000);
    await eventually('following the new chain', async () => (await cursor()) >= (await head()));
    expect(await launches()).not.toContainEqual(expect.objectContaining({ token: addresses.tokenD }));
  });

  it('sees that a token registered after its launch is already liquid', async () => {
    await launch(addresses.tokenC!);
    await eventually('caught up', async () => (await cursor()) >= (await head()));
    const liquidBy = await head();
    expect((await stack.request('POST', '/v1/intent', { key, body: intentBody({ tokenAddress: addresses.tokenC }) })).status).toBe(201);
    await node.rpc.call('evm_mine', []);
    await eventually('launch of C recorded', async () => (await launches()).some((l) => l.token === addresses.tokenC));
    const c = (await launches()).find((l) => l.token === addresses.tokenC)!;
    expect(BigInt(c.block_number)).toBe(liquidBy);
  });
});
