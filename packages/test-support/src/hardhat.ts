import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './nats-server.js';

/** The monorepo root (this file is packages/test-support/src/hardhat.ts). */
const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Default hardfork of the reference node (suites that fix the product's fork start it with the same one). */
export const HARDFORK = 'prague';

/** Every block gets this gas limit unless a suite asks for another (the differential suites use mainnet's 60M). */
export const BLOCK_GAS_LIMIT = 1_000_000_000;

export interface HardhatNodeOptions {
  chainId?: number;
  timeoutMs?: number;
  accounts?: number;
  hardfork?: string;
  blockGasLimit?: number;
  /** The genesis block's time (ISO 8601); the node's clock runs on from there. Default: now. */
  initialDate?: string;
}

export class JsonRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(`${method}: ${message} (code ${code})`);
    this.name = 'JsonRpcError';
  }
}

/** A minimal JSON-RPC 2.0 client over HTTP. */
export class JsonRpc {
  private id = 0;

  constructor(readonly url: string) {}

  async call<T = any>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params });
    const reply = (await this.post(method, body)) as { result?: T; error?: { code: number; message: string; data?: unknown } };
    if (reply.error) throw new JsonRpcError(method, reply.error.code, reply.error.message, reply.error.data);
    return reply.result as T;
  }

  /**
   * Several calls in one HTTP request; results in order, the first error thrown. Hardhat answers
   * the calls of a batch concurrently, in no set order: batch reads and independent writes, never
   * calls whose order matters.
   */
  async batch<T = any>(calls: Array<[method: string, params?: unknown[]]>): Promise<T[]> {
    return (await this.batchSettled<T>(calls)).map((r) => {
      if (r instanceof JsonRpcError) throw r;
      return r;
    });
  }

  /** Like {@link batch}, with each call's error in its place instead of thrown. */
  async batchSettled<T = any>(calls: Array<[method: string, params?: unknown[]]>): Promise<Array<T | JsonRpcError>> {
    if (calls.length === 0) return [];
    const first = this.id + 1;
    const body = JSON.stringify(calls.map(([method, params = []]) => ({ jsonrpc: '2.0', id: ++this.id, method, params })));
    const replies = (await this.post(calls.map((c) => c[0]).join(','), body)) as Array<{
      id: number;
      result?: T;
      error?: { code: number; message: string; data?: unknown };
    }>;
    const byId = new Map(replies.map((r) => [r.id, r]));
    return calls.map(([method], i) => {
      const reply = byId.get(first + i);
      if (!reply) throw new Error(`${method}: no answer in the batch`);
      if (reply.error) return new JsonRpcError(method, reply.error.code, reply.error.message, reply.error.data);
      return reply.result as T;
    });
  }

  private async post(what: string, body: string): Promise<unknown> {
    const post = () => fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    let res: Response;
    try {
      res = await post();
    } catch (err) {
      // A kept-alive socket the node closed while idle (its keep-alive timeout is 5 s, and
      // compiling or starting the product takes longer): the request never reached it.
      const code = (err as { cause?: { code?: string } }).cause?.code;
      if (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET') throw err;
      res = await post();
    }
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${what}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `hardhat node` (EDR) from the installed package, on a free port, with a config of its own in a
 * temporary directory. Chain id 1 unless given, base fee 0, FIFO mempool (the bundle's calls are mined in the
 * order they were sent), blocks may share a timestamp.
 */
export class HardhatNode {
  readonly rpc: JsonRpc;
  private output = '';
  private exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    private readonly dir: string,
  ) {
    this.rpc = new JsonRpc(url);
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-8_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', (code, signal) => {
      this.exited = { code, signal };
    });
  }

  static async start(options: number | HardhatNodeOptions = {}): Promise<HardhatNode> {
    const {
      chainId = 1,
      timeoutMs = 60_000,
      accounts = 20,
      hardfork = HARDFORK,
      blockGasLimit = BLOCK_GAS_LIMIT,
      initialDate,
    } = typeof options === 'number' ? { timeoutMs: options } : options;
    const pkgDir = join(ROOT, 'node_modules', 'hardhat');
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
    const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.hardhat;
    const dir = mkdtempSync(join(tmpdir(), 'hardhat-node-'));
    const config = {
      networks: {
        hardhat: {
          chainId,
          hardfork,
          initialBaseFeePerGas: 0,
          allowBlocksWithSameTimestamp: true,
          blockGasLimit,
          ...(initialDate ? { initialDate } : {}),
          mining: { auto: true, mempool: { order: 'fifo' } },
          accounts: { count: accounts },
        },
      },
    };
    writeFileSync(join(dir, 'hardhat.config.cjs'), `module.exports = ${JSON.stringify(config, null, 2)};\n`);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [join(pkgDir, bin), 'node', '--hostname', '127.0.0.1', '--port', String(port), '--config', join(dir, 'hardhat.config.cjs')],
      {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          // The config lives outside the monorepo, where hardhat would not find itself installed.
          HARDHAT_EXPERIMENTAL_ALLOW_NON_LOCAL_INSTALLATION: 'true',
          HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
          CI: 'true',
        },
      },
    );
    const node = new HardhatNode(child, `http://127.0.0.1:${port}`, dir);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (node.exited) {
        node.cleanup();
        throw new Error(`hardhat node exited (${JSON.stringify(node.exited)}):\n${node.output}`);
      }
      try {
        await node.rpc.call('web3_clientVersion');
        break;
      } catch {
        if (Date.now() > deadline) {
          await node.stop();
          throw new Error(`hardhat node did not answer on ${node.url} within ${timeoutMs} ms:\n${node.output}`);
        }
        await sleep(200);
      }
    }
    // Hardhat logs every request (with traces of reverts); nobody reads it.
    await node.rpc.call('hardhat_setLoggingEnabled', [false]);
    return node;
  }

  /** The last lines the node printed (for failure messages). */
  get log(): string {
    return this.output;
  }

  async stop(): Promise<void> {
    if (!this.exited && this.child.pid !== undefined) {
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    this.cleanup();
  }

  private cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
