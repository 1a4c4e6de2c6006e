import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainRpc } from '@tradeinfra/service-kit';
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
  /** How blocks order the pool: 'fifo' (default: as sent) or 'priority' (highest priority fee first, as public mempools). */
  mempoolOrder?: 'fifo' | 'priority';
}

/** An error the node answered a call with (method, code, detail, data): the shared client's RpcError. */
export { RpcError as JsonRpcError } from '@tradeinfra/service-kit';

/**
 * The shared JSON-RPC client (service-kit's ChainRpc: call, batch, all) as tests use it: results
 * typed `any` unless given, and a bound of 5 minutes (as fetch's) rather than the services' 10 s.
 */
export class JsonRpc extends ChainRpc {
  constructor(url: string) {
    super(url, { timeoutMs: 300_000 });
  }

  override call<T = any>(method: string, params: unknown[] = []): Promise<T> {
    return super.call<T>(method, params);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `hardhat node` (EDR) from the installed package, on a free port, with a config of its own in a
 * temporary directory. Chain id 1 unless given, base fee 0, FIFO mempool unless told (the bundle's calls are mined in the
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
      mempoolOrder = 'fifo',
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
          mining: { auto: true, mempool: { order: mempoolOrder } },
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
