import { ChainRpc } from '@tradeinfra/service-kit';
import { eventually, HardhatNode } from '@tradeinfra/test-support';
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
      wsUrls: [node.url.replace('http', 'ws')],
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
    await rpc.call('eth_uninstallFilter', [(feed as unknown as { polls: { filter: string }[] }).polls[0]!.filter]);
    await feed.poll(); // the node forgot the filter: warned, made again on the next poll
    expect(logs).toEqual([expect.stringContaining('pending-transaction polling failed')]);
    await feed.poll();
    const second = await send();
    await feed.poll();
    expect(seen).toEqual([first, second]);
    expect(logs.at(-1)).toBe('pending-transaction polling restored');
  });

  it('follows every WebSocket of the chain and announces each transaction once, whichever nodes announce it', async () => {
    const seen: string[] = [];
    let subscriptions = 0;
    let both!: () => void;
    const live = new Promise<void>((resolve) => (both = resolve));
    const ws = node.url.replace('http', 'ws');
    const feed = new PendingTransactions({
      wsUrls: [ws, ws],
      rpc: new ChainRpc(node.url),
      pollMs: 3_600_000,
      onHashes: (hashes) => seen.push(...hashes),
      logger: { log: () => undefined, warn: () => undefined },
      onSubscribed: () => ++subscriptions === 2 && both(),
    });
    feed.start();
    try {
      await live;
      const sent = [await send(), await send()];
      // A third transaction, announced by both sockets after the first two: once it is in, so are their duplicates.
      const last = await send();
      await eventually('the last one announced', () => seen.includes(last));
      expect(seen).toEqual([...sent, last]);
    } finally {
      feed.stop();
    }
  });

  it('polls a filter on each endpoint of a chain with several, and announces each transaction once', async () => {
    const rpc = new ChainRpc([node.url, node.url], { checkIntervalMs: 60_000 });
    const seen: string[] = [];
    const feed = new PendingTransactions({ rpc, pollMs: 3_600_000, onHashes: (h) => seen.push(...h), logger: { log: () => undefined, warn: () => undefined } });
    try {
      await feed.poll();
      const sent = [await send(), await send()];
      await feed.poll();
      expect(seen).toEqual(sent);
      expect((feed as unknown as { polls: { filter: string | null }[] }).polls.map((p) => p.filter !== null)).toEqual([true, true]);
    } finally {
      rpc.close();
    }
  });
});
