import { ChainRpc } from '@tradeinfra/service-kit';
import { HardhatNode } from '@tradeinfra/test-support';
import { PendingTransactions } from './pending-transactions.js';

/** The pending-transaction feed of a real node that does not mine until told to. */
describe('PendingTransactions on a real node', () => {
  let node: HardhatNode;
  let from: string;

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337 });
    await node.rpc.call('evm_setAutomine', [false]);
    from = (await node.rpc.call<string[]>('eth_accounts'))[0]!;
  }, 60_000);
  afterAll(() => node?.stop());

  const send = () => node.rpc.call<string>('eth_sendTransaction', [{ from, to: from, value: '0x1' }]);

  it('announces each pending transaction over the WebSocket as the node receives it', async () => {
    const logs: string[] = [];
    const logger = { log: (m: string) => logs.push(m), warn: (m: string) => logs.push(m) };
    const seen: string[] = [];
    let subscribed!: () => void;
    const live = new Promise<void>((resolve) => (subscribed = resolve));
    let third!: () => void;
    const three = new Promise<void>((resolve) => (third = resolve));
    const feed = new PendingTransactions({
      wsUrl: node.url.replace('http', 'ws'),
      rpc: new ChainRpc(node.url),
      pollMs: 3_600_000,
      onHashes: (hashes) => {
        seen.push(...hashes);
        if (seen.length === 3) third();
      },
      logger,
      onSubscribed: subscribed,
    });
    feed.start();
    try {
      await live;
      const sent = [await send(), await send(), await send()];
      await three;
      expect(seen).toEqual(sent);
      expect(logs).toEqual([]);
    } finally {
      feed.stop();
    }
  });

  it('polls a pending-transaction filter where the node has no WebSocket, and re-creates a filter the node forgot', async () => {
    const rpc = new ChainRpc(node.url);
    const logs: string[] = [];
    const logger = { log: (m: string) => logs.push(m), warn: (m: string) => logs.push(m) };
    const seen: string[] = [];
    const feed = new PendingTransactions({ rpc, pollMs: 3_600_000, onHashes: (h) => seen.push(...h), logger });
    await feed.poll(); // makes the filter
    const first = await send();
    await feed.poll();
    expect(seen).toEqual([first]);
    await rpc.call('eth_uninstallFilter', [(feed as unknown as { filter: string }).filter]);
    await feed.poll(); // the node forgot the filter: warned, made again on the next poll
    expect(logs).toEqual([expect.stringContaining('pending-transaction polling failed')]);
    await feed.poll();
    const second = await send();
    await feed.poll();
    expect(seen).toEqual([first, second]);
    expect(logs.at(-1)).toBe('pending-transaction polling restored');
  });
});
