import { eventually, HardhatNode, JsonRpcProxy } from '@tradeinfra/test-support';
import { Transaction, Wallet } from 'ethers';
import { ChainRpc } from './chain-rpc.js';
import { RpcUnavailable } from './json-rpc.js';

/** Hardhat's first development account. */
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/** Two endpoints (proxies) in front of one hardhat node: one of them goes bad at a time. */
describe('ChainRpc over several endpoints', () => {
  let node: HardhatNode;
  let a: JsonRpcProxy;
  let b: JsonRpcProxy;
  let rpc: ChainRpc;
  const warnings: string[] = [];
  const mine = (n: number) => node.rpc.call('hardhat_mine', [`0x${n.toString(16)}`]);
  const head = async () => BigInt(await node.rpc.call<string>('eth_blockNumber'));
  const reader = () => rpc.status().find((s) => s.reads)!.url;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337 });
    await mine(10);
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
  });
  beforeEach(async () => {
    [a, b] = await Promise.all([JsonRpcProxy.start({ upstream: node.url }), JsonRpcProxy.start({ upstream: node.url })]);
    // Timeouts far past the test's own: only a failover can answer in time.
    rpc = new ChainRpc([a.url, b.url], {
      timeoutMs: 300_000,
      checkIntervalMs: 50,
      checkTimeoutMs: 300,
      maxLagBlocks: 2,
      logger: { log: () => undefined, warn: (m) => warnings.push(m) },
    });
    await eventually('both endpoints checked', () => rpc.status().every((s) => s.state === 'up'));
  });
  afterEach(async () => {
    rpc.close();
    await Promise.all([a.close(), b.close()]);
  });

  it('reads from the first endpoint, and through the other from the call after it dies, and from it again once it is back', async () => {
    await rpc.call('eth_chainId');
    expect([a.stats().byMethod.eth_chainId, b.stats().byMethod.eth_chainId]).toEqual([1, undefined]);
    await a.fault({ kind: 'down' });
    // Made as soon as it died (before a check, or as one notices): answered through the other endpoint.
    await expect(rpc.call<string>('eth_chainId')).resolves.toBe('0x7a69');
    expect(b.stats().byMethod.eth_chainId).toBe(1);
    expect(rpc.status().map((s) => s.state)).toEqual(['down', 'up']);
    expect(reader()).toBe(b.url);
    expect(warnings.some((w) => w.includes(`endpoint ${a.url} is down`))).toBe(true);
    await a.fault(null);
    await eventually('first endpoint back', () => reader() === a.url);
    expect(rpc.status()[0]).toMatchObject({ state: 'up', lag: 0, reads: true });
  });

  it('fails a call over once its endpoint stalls, long before the call would time out', async () => {
    await a.fault({ kind: 'stall' });
    await expect(rpc.call<string>('eth_chainId')).resolves.toBe('0x7a69');
    expect(rpc.status()[0]!.state).toBe('down');
    await a.fault(null);
  });

  it('takes no reads from an endpoint more than maxLagBlocks behind the highest head, and reads a block through one that has it', async () => {
    const stale = await head();
    await a.fault({ kind: 'stale', head: stale });
    await mine(5);
    await eventually('first endpoint lagging', () => rpc.status()[0]!.state === 'lagging');
    expect(rpc.status()[0]).toMatchObject({ head: stale.toString(), lag: 5, reads: false });
    expect(rpc.highestHead()).toBe(await head());
    a.reset();
    const latest = await rpc.call<{ number: string }>('eth_getBlockByNumber', ['latest', false]);
    expect(BigInt(latest.number)).toBe(await head());
    expect(await rpc.atLeast(stale + 5n).call('eth_getBlockByNumber', [`0x${(stale + 5n).toString(16)}`, false])).not.toBeNull();
    expect(a.stats().byMethod.eth_getBlockByNumber).toBeUndefined();
    // Within maxLagBlocks again: it reads again.
    await a.fault({ kind: 'stale', head: (await head()) - 1n });
    await eventually('first endpoint up again', () => reader() === a.url);
    await a.fault(null);
  });

  it('sends a transaction to every live endpoint, and through the other while one is dead', async () => {
    const wallet = new Wallet(KEY);
    const nonce = BigInt(await node.rpc.call<string>('eth_getTransactionCount', [wallet.address, 'pending']));
    const sign = (n: bigint) =>
      wallet.signTransaction({
        type: 2,
        chainId: 31337n,
        nonce: Number(n),
        to: wallet.address,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      });
    a.reset();
    b.reset();
    const first = await sign(nonce);
    await rpc.call('eth_sendRawTransaction', [first]);
    await eventually('both endpoints got it', () => a.stats().byMethod.eth_sendRawTransaction === 1 && b.stats().byMethod.eth_sendRawTransaction === 1);
    await a.fault({ kind: 'down' });
    const second = await sign(nonce + 1n);
    const hash = await rpc.call<string>('eth_sendRawTransaction', [second]);
    expect(hash).toBe(Transaction.from(second).hash);
    expect(await node.rpc.call('eth_getTransactionReceipt', [hash])).toMatchObject({ status: '0x1' });
    await a.fault(null);
  });

  it('says every endpoint is down when none answers, and reads again once one is back', async () => {
    await Promise.all([a.fault({ kind: 'down' }), b.fault({ kind: 'down' })]);
    await expect(rpc.call('eth_chainId')).rejects.toBeInstanceOf(RpcUnavailable);
    await eventually('both down', () => rpc.status().every((s) => s.state === 'down'));
    await b.fault(null);
    await eventually('second endpoint back', () => reader() === b.url);
    await expect(rpc.call('eth_chainId')).resolves.toBe('0x7a69');
    await a.fault(null);
  });
});
