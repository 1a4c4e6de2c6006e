import type { ExecutedChain } from './chain-clients.js';
import type { ClaimedIntent } from './execution.repository.js';
import { mempoolNonces, poolClashes, readSenders, SenderHeads, senderOf, senderState } from './round-reads.js';

describe('senderState', () => {
  it('starts each sender past its buys still out, or at the node’s pending nonce when that is ahead', () => {
    const s = senderState(
      ['0xA', '0xB'],
      ['0x5', '0x64', '0x2', '0xc8'],
      new Map([
        ['0xa', 9n],
        ['0xb', 0n],
      ]),
      [],
      [],
    );
    expect(s.nonce).toEqual(
      new Map([
        ['0xA', 10n],
        ['0xB', 2n],
      ]),
    );
    expect(s.balance).toEqual(
      new Map([
        ['0xA', 100n],
        ['0xB', 200n],
      ]),
    );
  });

  it('reads wallet intents’ wrapped balance, allowance and spent nonce', () => {
    const s = senderState(
      [],
      [],
      new Map(),
      [
        { id: 'w1', wallet: '0xAA' },
        { id: 'w2', wallet: '0xBB' },
      ],
      ['0x10', '0x20', '0x0', '0x1', '0x2', '0x1'],
    );
    expect(s.wrapped).toEqual(
      new Map([
        ['0xaa', { balance: 16n, allowance: 32n }],
        ['0xbb', { balance: 1n, allowance: 2n }],
      ]),
    );
    expect([...s.nonceSpent]).toEqual(['w2']);
  });
});

describe('senderOf', () => {
  it('sends a wallet intent from the relayer where the chain has one, a bot intent from its wallet', () => {
    const wallets = { executor: '0xE', relayer: null as never, relayerAddress: '0xR' };
    expect(senderOf({ wallets }, { signature: '0xsig', wallet: '0xW' })).toBe('0xR');
    expect(senderOf({ wallets }, { signature: null, wallet: '0xW' })).toBe('0xW');
    expect(senderOf({ wallets: null }, { signature: '0xsig', wallet: '0xW' })).toBe('0xW');
  });
});

describe('mempoolNonces', () => {
  it('gives each sender the nonce after its last transaction in the pending block', () => {
    const block = {
      transactions: [
        { from: '0xAA', nonce: '0x4' },
        { from: '0xbb', nonce: '0x0' },
        { from: '0xaa', nonce: '0x6' },
        { from: '0xAa', nonce: '0x5' },
      ],
    };
    expect(mempoolNonces(block)).toEqual(
      new Map([
        ['0xaa', 7n],
        ['0xbb', 1n],
      ]),
    );
  });

  it('reads nothing from a missing block or one listing hashes only', () => {
    expect(mempoolNonces(null).size).toBe(0);
    expect(mempoolNonces({ transactions: ['0x12'] }).size).toBe(0);
  });
});

describe('poolClashes', () => {
  it('names the senders whose pooled transactions reach their first nonce in the round', () => {
    const block = {
      transactions: [
        { from: '0xAA', nonce: '0x4' },
        { from: '0xbb', nonce: '0x1' },
        { from: '0xcc', nonce: '0x7' },
      ],
    };
    const first = new Map([
      ['0xaa', 4n], // its own transaction has nonce 4: clash
      ['0xbb', 2n], // its pooled transaction is before the round's (an earlier buy of ours): none
      ['0xdd', 0n], // nothing in the pool
    ]);
    expect(poolClashes(block, first)).toEqual(new Set(['0xaa']));
    expect(poolClashes(null, first).size).toBe(0);
  });
});

describe('SenderHeads', () => {
  /** A node whose answer to each call is its method and params, recording every batch. */
  function node(fail = false) {
    const batches: { method: string; params: unknown[] }[][] = [];
    return {
      batches,
      all: <T>(calls: { method: string; params: unknown[] }[]) => {
        batches.push(calls);
        if (fail) return Promise.reject(new Error('node down'));
        return Promise.resolve(calls.map((c) => `${c.method === 'eth_getBalance' ? 'b' : 'n'}:${String(c.params[0])}@${String(c.params[1])}`) as T[]);
      },
    };
  }

  it('reads each sender once per head, at the head’s number, and again at a newer head', async () => {
    const heads = new SenderHeads();
    const rpc = node();
    expect(await Promise.all(heads.read(rpc, 10n, ['0xA', '0xB'], true))).toEqual([
      { count: 'n:0xa@0xa', balance: 'b:0xa@0xa' },
      { count: 'n:0xb@0xa', balance: 'b:0xb@0xa' },
    ]);
    // Same head: only the sender not read yet (any letter case is the same sender).
    expect(await Promise.all(heads.read(rpc, 10n, ['0xa', '0xC'], true))).toEqual([
      { count: 'n:0xa@0xa', balance: 'b:0xa@0xa' },
      { count: 'n:0xc@0xa', balance: 'b:0xc@0xa' },
    ]);
    expect(rpc.batches.map((b) => b.length)).toEqual([4, 2]);
    await Promise.all(heads.read(rpc, 11n, ['0xA'], true));
    expect(rpc.batches[2]).toEqual([
      { method: 'eth_getTransactionCount', params: ['0xa', '0xb'] },
      { method: 'eth_getBalance', params: ['0xa', '0xb'] },
    ]);
  });

  it('reads only balances where nonces come live from the node, and a round behind the newest head reads for itself', async () => {
    const heads = new SenderHeads();
    const rpc = node();
    await Promise.all(heads.read(rpc, 20n, ['0xA'], false));
    expect(rpc.batches[0]).toEqual([{ method: 'eth_getBalance', params: ['0xa', '0x14'] }]);
    expect(await Promise.all(heads.read(rpc, 19n, ['0xA'], false))).toEqual([{ count: null, balance: 'b:0xa@0x13' }]);
    // The newest head's state is still kept.
    await Promise.all(heads.read(rpc, 20n, ['0xA'], false));
    expect(rpc.batches).toHaveLength(2);
  });

  it('forgets a failed read, so the next one asks the node again', async () => {
    const heads = new SenderHeads();
    await expect(Promise.all(heads.read(node(true), 5n, ['0xA'], true))).rejects.toThrow('node down');
    const rpc = node();
    expect(await Promise.all(heads.read(rpc, 5n, ['0xA'], true))).toEqual([{ count: 'n:0xa@0x5', balance: 'b:0xa@0x5' }]);
    expect(rpc.batches).toHaveLength(1);
  });
});

describe('readSenders', () => {
  /** A hardhat-like node (pending nonces from one pending block): counts 3, balances 100, sender 0xa has nonces 3 and 4 in its pool. */
  function hardhat() {
    const calls: string[] = [];
    const pool = {
      transactions: [
        { from: '0xA', nonce: '0x3' },
        { from: '0xA', nonce: '0x4' },
      ],
    };
    const chain = {
      config: { chainId: 31337, wrappedNative: `0x${'ee'.repeat(20)}` },
      wallets: null,
      traits: () => Promise.resolve({ pendingNonces: 'block', orderedBatches: false }),
      rpc: {
        all: <T>(batch: { method: string; params: unknown[] }[]) => {
          calls.push(...batch.map((c) => `${c.method}:${String(c.params[0])}`));
          return Promise.resolve(batch.map((c) => (c.method === 'eth_getBlockByNumber' ? pool : c.method === 'eth_getBalance' ? '0x64' : '0x3')) as T[]);
        },
      },
    } as unknown as ExecutedChain;
    return { chain, calls };
  }
  const intents = [{ wallet: '0xA', signature: null }] as unknown as ClaimedIntent[];
  const none = () => Promise.resolve(new Map<string, bigint>());

  it('counts what the pending block shows of each sender, read by the round itself', async () => {
    const { chain, calls } = hardhat();
    const state = await readSenders(chain, intents, 7n, none);
    expect(state.nonce.get('0xA')).toBe(5n);
    expect(calls).toContain('eth_getBlockByNumber:pending');
  });

  it('takes the pending block read ahead (as the launch was recognised) instead of reading it again', async () => {
    const { chain, calls } = hardhat();
    const ahead = Promise.resolve([{ transactions: [{ from: '0xa', nonce: '0x9' }] }]);
    const state = await readSenders(chain, intents, 7n, none, new SenderHeads(), ahead);
    expect(state.nonce.get('0xA')).toBe(10n);
    expect(calls).not.toContain('eth_getBlockByNumber:pending');
    // A read ahead that failed (null): the round reads the block itself.
    const again = hardhat();
    expect((await readSenders(again.chain, intents, 7n, none, new SenderHeads(), Promise.resolve(null))).nonce.get('0xA')).toBe(5n);
    expect(again.calls).toContain('eth_getBlockByNumber:pending');
  });
});
