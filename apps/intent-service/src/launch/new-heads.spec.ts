import { HardhatNode } from '@tradeinfra/test-support';
import { NewHeads } from './new-heads.js';

describe('NewHeads on a real node', () => {
  let node: HardhatNode;
  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337 });
  }, 60_000);
  afterAll(() => node?.stop());

  it('announces every new block as it is mined', async () => {
    const heads: bigint[] = [];
    let announced!: () => void;
    const third = new Promise<void>((resolve) => (announced = resolve));
    const logs: string[] = [];
    const subscription = new NewHeads(
      node.url.replace('http', 'ws'),
      (n) => {
        heads.push(n);
        if (heads.length === 3) announced();
      },
      { log: (m: string) => logs.push(m), warn: (m: string) => logs.push(m) },
    );
    subscription.start();
    try {
      // The subscription is live once the node answered it; mine until three heads arrived.
      const start = BigInt(await node.rpc.call<string>('eth_blockNumber'));
      const miner = setInterval(() => void node.rpc.call('evm_mine').catch(() => undefined), 100);
      await third;
      clearInterval(miner);
      expect(heads[0]! > start).toBe(true);
      expect(heads[1]).toBe(heads[0]! + 1n);
      expect(heads[2]).toBe(heads[1]! + 1n);
      expect(logs).toEqual([]);
    } finally {
      subscription.stop();
    }
  });

  it('keeps retrying a node that is not there, quietly after the first warning', async () => {
    const logs: string[] = [];
    const subscription = new NewHeads('ws://127.0.0.1:9', () => undefined, { log: (m: string) => logs.push(m), warn: (m: string) => logs.push(m) });
    subscription.start();
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (logs.length > 0) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    subscription.stop();
    expect(logs).toEqual(['newHeads subscription to ws://127.0.0.1:9 lost; polling meanwhile, reconnecting']);
  });
});
