import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainError, ChainErrorCode } from './chain.errors.js';
import { ChainState, createStateCache, ReadBudget, stripWord } from './chain-state.js';

interface Call {
  method: string;
  params: unknown[];
}

/** A scripted JSON-RPC upstream that records every HTTP request (round trip) it gets. */
class FakeUpstream {
  readonly batches: Call[][] = [];
  hang = false;
  private server!: Server;
  url = '';

  async start(answer: (call: Call) => unknown): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (this.hang) return;
        const parsed = JSON.parse(body) as ({ id: number } & Call)[];
        const list = Array.isArray(parsed) ? parsed : [parsed];
        this.batches.push(list.map(({ method, params }) => ({ method, params })));
        const out = list.map((c) => {
          try {
            return { jsonrpc: '2.0', id: c.id, result: answer(c) };
          } catch (err) {
            return { jsonrpc: '2.0', id: c.id, error: { code: -32000, message: (err as Error).message } };
          }
        });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(out));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  calls(method: string): number {
    return this.batches.flat().filter((c) => c.method === method).length;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

const ADDR = '0x00000000000000000000000000000000000000aa';
const block = {
  number: '0x10',
  hash: `0x${'11'.repeat(32)}`,
  timestamp: '0x64',
  gasLimit: '0x1c9c380',
  baseFeePerGas: '0x7',
  miner: ADDR,
  mixHash: `0x${'00'.repeat(32)}`,
};

function answer(call: Call): unknown {
  switch (call.method) {
    case 'eth_getBlockByNumber':
      return call.params[0] === '0x999' ? null : block;
    case 'eth_getBalance':
      return call.params[0] === ADDR ? '0x5' : '0x0';
    case 'eth_getTransactionCount':
      return '0x0';
    case 'eth_getCode':
      return '0x';
    case 'eth_getStorageAt':
      return `0x${'0'.repeat(62)}2a`;
    case 'eth_createAccessList':
      return { accessList: [{ address: '0x00000000000000000000000000000000000000BB', storageKeys: ['0x01'] }], gasUsed: '0x0' };
    default:
      throw new Error(`unexpected ${call.method}`);
  }
}

describe('ChainState', () => {
  let upstream: FakeUpstream;
  let chain: ChainState;

  beforeEach(async () => {
    upstream = new FakeUpstream();
    await upstream.start(answer);
    chain = new ChainState({ chainId: 1, rpcUrls: [upstream.url], hardfork: null }, createStateCache(1 << 20), 300, 100);
  });
  afterEach(() => upstream.stop());

  it('batches the requests of one tick into one round trip and shares concurrent misses', async () => {
    const [a, b, c] = await Promise.all([chain.account(16n, ADDR), chain.account(16n, ADDR), chain.storage(16n, ADDR, `0x${'0'.repeat(64)}`)]);
    expect(a).toBe(b);
    expect(a).toMatchObject({ exists: true, balance: 5n, nonce: 0n });
    expect(c).toEqual(new Uint8Array([0x2a]));
    expect(upstream.batches).toHaveLength(1);
    expect(upstream.calls('eth_getBalance')).toBe(1);
    expect(chain.rpc.roundTrips).toBe(1);
  });

  it('serves repeated reads from the cache, per block', async () => {
    await chain.account(16n, ADDR);
    await chain.account(16n, ADDR);
    expect(upstream.batches).toHaveLength(1);
    await chain.account(17n, ADDR);
    expect(upstream.batches).toHaveLength(2);
  });

  it('treats an account with nothing as absent', async () => {
    expect((await chain.account(16n, '0x00000000000000000000000000000000000000cc')).exists).toBe(false);
  });

  it('names what the access lists name, then fetches those keys in one batch', async () => {
    const keys = await chain.accessListKeys(16n, [{ from: ADDR, to: '0x00000000000000000000000000000000000000dd', data: '0x' }]);
    expect(keys).toEqual(['a:0x00000000000000000000000000000000000000bb', `s:0x00000000000000000000000000000000000000bb:0x${'0'.repeat(63)}1`]);
    expect(upstream.batches).toHaveLength(1);
    const values = await chain.fetchMisses(16n, [...keys, 'a:0x00000000000000000000000000000000000000dd', 'h:16']);
    expect(upstream.batches).toHaveLength(2);
    expect([...values.keys()]).toHaveLength(4);
    expect(chain.cachedStorage(16n, '0x00000000000000000000000000000000000000bb', `0x${'0'.repeat(63)}1`)).toBeDefined();
    expect(chain.cachedBlockHash(16n)).toEqual(new Uint8Array(32).fill(0x11));
  });

  it('remembers the newest value of each key at any block (what a run at a new block assumes)', async () => {
    expect(chain.lastKnownAccount(ADDR)).toBeUndefined();
    await chain.account(16n, ADDR);
    expect(chain.lastKnownAccount(ADDR)).toMatchObject({ balance: 5n, exists: true });
    expect(chain.cachedAccount(17n, ADDR)).toBeUndefined();
  });

  it('refuses an unknown block as an unknown block and an upstream that does not answer as a timeout', async () => {
    await expect(chain.block(0x999n)).rejects.toMatchObject({
      code: ChainErrorCode.UnknownBlock,
      message: 'block 2457 does not exist on chain 1 (in the future?)',
    });
    upstream.hang = true;
    const err = await chain.block(0x20n).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainError);
    expect(err).toMatchObject({ code: ChainErrorCode.Timeout, message: expect.stringContaining('did not answer within 300 ms') });
  });
});

describe('stripWord', () => {
  it('drops leading zero bytes; zero is empty', () => {
    expect(stripWord(`0x${'0'.repeat(64)}`)).toEqual(new Uint8Array(0));
    expect(stripWord(`0x${'0'.repeat(61)}100`)).toEqual(new Uint8Array([1, 0]));
  });
});

describe('ReadBudget', () => {
  it('counts reads up to its limit and refuses the batch that would go past it, spending nothing of it', () => {
    const budget = new ReadBudget(5);
    budget.spend(3);
    budget.spend(0);
    expect(() => budget.spend(3)).toThrow(
      expect.objectContaining({
        code: ChainErrorCode.ReadBudgetSpent,
        message: 'The simulation needs more than 5 reads of chain state from the node (SIM_MAX_UPSTREAM_READS): 3 made, 3 more wanted',
        details: { limit: 5, used: 3, wanted: 3 },
      }),
    );
    budget.spend(2);
    expect(budget.used).toBe(5);
  });
});
