import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAccount {
  balance?: bigint;
  nonce?: number;
  code?: string;
  storage?: Record<string, bigint>;
}

interface Call {
  method: string;
  params: unknown[];
}

const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

/**
 * A JSON-RPC node with scripted state per block (each block starts as a copy of the one before
 * it), answering what the simulation service asks (headers, balance, nonce, code, storage) and
 * counting the HTTP requests (round trips) it gets. Like hardhat, it has no eth_createAccessList.
 */
export class FakeChain {
  readonly batches: Call[][] = [];
  private readonly blocks = new Map<number, { timestamp: number; accounts: Map<string, FakeAccount> }>();
  private server!: Server;
  url = '';
  head = 0;
  /** Every block's gas limit. */
  gasLimit = 60_000_000;

  constructor(
    first: number,
    timestamp: number,
    accounts: Record<string, FakeAccount>,
    private readonly miner = '0x00000000000000000000000000000000000c0ffe',
  ) {
    this.blocks.set(first, { timestamp, accounts: new Map(Object.entries(accounts).map(([a, v]) => [a.toLowerCase(), structuredClone(v)])) });
    this.head = first;
  }

  /** A new head (12 s later), with these accounts changed. */
  mine(changes: Record<string, FakeAccount> = {}): number {
    const prev = this.blocks.get(this.head)!;
    const accounts = new Map([...prev.accounts].map(([a, v]) => [a, structuredClone(v)]));
    for (const [a, v] of Object.entries(changes)) {
      const current = accounts.get(a.toLowerCase()) ?? {};
      accounts.set(a.toLowerCase(), { ...current, ...v, storage: { ...current.storage, ...v.storage } });
    }
    this.head++;
    this.blocks.set(this.head, { timestamp: prev.timestamp + 12, accounts });
    return this.head;
  }

  reset(): void {
    this.batches.length = 0;
  }

  get roundTrips(): number {
    return this.batches.length;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const parsed = JSON.parse(body) as ({ id: number } & Call) | ({ id: number } & Call)[];
        const list = Array.isArray(parsed) ? parsed : [parsed];
        this.batches.push(list.map(({ method, params }) => ({ method, params })));
        const out = list.map((c) => {
          try {
            return { jsonrpc: '2.0', id: c.id, result: this.answer(c) };
          } catch (err) {
            return { jsonrpc: '2.0', id: c.id, error: { code: (err as { code?: number }).code ?? -32000, message: (err as Error).message } };
          }
        });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(Array.isArray(parsed) ? out : out[0]));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private blockOf(tag: unknown): number {
    return tag === 'latest' ? this.head : Number(BigInt(tag as string));
  }

  private answer({ method, params }: Call): unknown {
    const account = (address: unknown, tag: unknown): FakeAccount => this.blocks.get(this.blockOf(tag))?.accounts.get(String(address).toLowerCase()) ?? {};
    switch (method) {
      case 'eth_getBlockByNumber': {
        const n = this.blockOf(params[0]);
        const block = this.blocks.get(n);
        if (!block) return null;
        return {
          number: hex(n),
          hash: word(BigInt(n) * 1_000_003n),
          timestamp: hex(block.timestamp),
          gasLimit: hex(this.gasLimit),
          baseFeePerGas: '0x7',
          miner: this.miner,
          mixHash: word(0n),
          difficulty: '0x0',
        };
      }
      case 'eth_getBalance':
        return hex(account(params[0], params[1]).balance ?? 0n);
      case 'eth_getTransactionCount':
        return hex(account(params[0], params[1]).nonce ?? 0);
      case 'eth_getCode':
        return account(params[0], params[2] ?? params[1]).code ?? '0x';
      case 'eth_getStorageAt':
        return word(account(params[0], params[2]).storage?.[BigInt(params[1] as string).toString()] ?? 0n);
      default:
        throw Object.assign(new Error(`the method ${method} does not exist`), { code: -32601 });
    }
  }
}
