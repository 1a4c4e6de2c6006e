import { ChainRpc } from '@tradeinfra/service-kit';
import { HardhatNode } from '@tradeinfra/test-support';
import type { ExecutedChain } from '../execution/chain-clients.js';
import type { ClaimedIntent } from '../execution/execution.repository.js';
import { readPendingBlock, readSenders, SenderHeads } from '../execution/round-reads.js';

/**
 * The senders' next nonces on a real hardhat node (automine off) whose pool holds a sender's
 * transactions with a gap: both ways of reading them (PENDING_NONCES `block`: one pending block
 * and each sender's count; `sender`: each sender's pending count) give the nonce right after
 * those that follow on from the sender's count, never one past the gap.
 */
describe('pending nonces on hardhat, a sender with a gap in the pool', () => {
  let node: HardhatNode;
  let rpc: ChainRpc;
  let head: bigint;
  let [a, b, c]: string[] = [];

  beforeAll(async () => {
    node = await HardhatNode.start({ chainId: 31337 });
    rpc = new ChainRpc(node.url);
    [a, b, c] = (await rpc.call<string[]>('eth_accounts', [])).map((x) => x.toLowerCase());
    // a: nonce 0 mined; b: nothing mined.
    await rpc.call('eth_sendTransaction', [{ from: a, to: c, value: '0x1' }]);
    await rpc.call('evm_setAutomine', [false]);
    head = BigInt(await rpc.call<string>('eth_blockNumber', []));
    // In the pool: a's nonces 1 and 2, then 4 (past a gap at 3); b's nonce 1 (past a gap at 0).
    for (const nonce of [1, 2, 4]) await rpc.call('eth_sendTransaction', [{ from: a, to: c, value: '0x1', nonce: `0x${nonce.toString(16)}` }]);
    await rpc.call('eth_sendTransaction', [{ from: b, to: c, value: '0x1', nonce: '0x1' }]);
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
  });

  const chainWith = (pendingNonces: 'sender' | 'block') =>
    ({
      config: { chainId: 31337, wrappedNative: `0x${'ee'.repeat(20)}` },
      wallets: null,
      traits: () => Promise.resolve({ pendingNonces, orderedBatches: false }),
      rpc,
    }) as unknown as ExecutedChain;
  const intents = () => [a, b].map((wallet) => ({ wallet, signature: null })) as unknown as ClaimedIntent[];
  const none = () => Promise.resolve(new Map<string, bigint>());

  it.each(['block', 'sender'] as const)('PENDING_NONCES %s: the nonce after those that follow on, not one past the gap', async (mode) => {
    const state = await readSenders(chainWith(mode), intents(), head, none, new SenderHeads());
    expect(state.nonce.get(a)).toBe(3n);
    expect(state.nonce.get(b)).toBe(0n);
  });

  it('the pending block read ahead (as a launch is recognised) gives the same', async () => {
    const ahead = readPendingBlock(rpc);
    const state = await readSenders(chainWith('block'), intents(), head, none, new SenderHeads(), ahead);
    expect([state.nonce.get(a), state.nonce.get(b)]).toEqual([3n, 0n]);
  });
});
