import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hexlify } from 'ethers';
import { keccak256Bytes } from '@tradeinfra/service-kit';

/** One `eth_sendBundle` as a relay receives it. */
export interface ReceivedBundle {
  txs: string[];
  blockNumber: string;
  revertingTxHashes: string[];
  /** When it arrived (Date.now()). */
  at: number;
}

export interface LocalRelayOptions {
  /**
   * Act as a builder too: put each bundle's transactions into this node's pool, in the bundle's
   * order, as they arrive (each answered before the next is sent; a transaction the pool already
   * has is skipped). A node that mines its pool in arrival order then builds the bundle as sent.
   */
  buildOn?: (method: string, params: unknown[]) => Promise<unknown>;
}

/**
 * A Flashbots-style relay on loopback for tests and benchmarks: answers every `eth_sendBundle`
 * of a JSON-RPC batch at once with a bundle hash, and records what it received.
 */
export class LocalRelay {
  readonly bundles: ReceivedBundle[] = [];
  /** Transactions already put into the node's pool (by hash), when building. */
  private readonly built = new Set<string>();
  private building: Promise<void> = Promise.resolve();
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly options: LocalRelayOptions,
  ) {}

  static async start(options: LocalRelayOptions = {}): Promise<LocalRelay> {
    let relay: LocalRelay | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        const calls = (Array.isArray(body) ? body : [body]) as { id: number; method: string; params: [Omit<ReceivedBundle, 'at'>] }[];
        const at = Date.now();
        const answers = calls.map((c) => {
          if (c.method !== 'eth_sendBundle') return { jsonrpc: '2.0', id: c.id, error: { code: -32601, message: `${c.method} is not served here` } };
          relay!.receive({ ...c.params[0], at });
          // Native Keccak: ethers' own takes ~7 ms over a 100-buy bundle, in front of the answer a benchmark times.
          return { jsonrpc: '2.0', id: c.id, result: { bundleHash: hexlify(keccak256Bytes(Buffer.from(JSON.stringify(c.params)))) } };
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay = new LocalRelay(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, options);
    return relay;
  }

  /** Resolves with the first bundle received (now or later) that `match` accepts. */
  async waitFor(match: (bundle: ReceivedBundle) => boolean, timeoutMs = 30_000): Promise<ReceivedBundle> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.bundles.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching bundle within ${timeoutMs} ms (${this.bundles.length} received)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until every bundle received so far is in the node's pool (when building). */
  async settled(): Promise<void> {
    await this.building;
  }

  async stop(): Promise<void> {
    await this.building;
    await new Promise((resolve) => this.server.close(resolve));
  }

  private receive(bundle: ReceivedBundle): void {
    this.bundles.push(bundle);
    const build = this.options.buildOn;
    if (build) {
      this.building = this.building.then(async () => {
        for (const raw of bundle.txs) {
          const hash = hexlify(keccak256Bytes(Buffer.from(raw.slice(2), 'hex')));
          if (this.built.has(hash)) continue;
          this.built.add(hash);
          // The launch is already in the pool (seen pending): the node says so, and that is fine.
          await build('eth_sendRawTransaction', [raw]).catch(() => undefined);
        }
      });
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
