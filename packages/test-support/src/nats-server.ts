import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The real nats-server binary: NATS_SERVER_BIN, else the first on PATH or in /usr/sbin. */
export function natsServerBinary(): string {
  const candidates = [process.env.NATS_SERVER_BIN, ...(process.env.PATH ?? '').split(':').map((d) => join(d, 'nats-server')), '/usr/sbin/nats-server'];
  const found = candidates.find((c): c is string => !!c && existsSync(c));
  if (!found) throw new Error('nats-server not found: install it (apt-get install nats-server) or set NATS_SERVER_BIN');
  return found;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface NatsServerOptions {
  /** A configuration file (its listen, monitoring port and store are overridden). */
  config?: string;
  /** Environment of the server (the variables a configuration file refers to). */
  env?: NodeJS.ProcessEnv;
  /** Extra flags (e.g. TLS). */
  args?: string[];
}

/**
 * A private nats-server with JetStream for one test file: isolated subjects and streams,
 * and a server the test may stop and start again (same port, same storage).
 */
export class TestNatsServer {
  private process: ChildProcess | null = null;
  private readonly storeDir = mkdtempSync(join(tmpdir(), 'nats-test-'));

  private constructor(
    readonly port: number,
    private readonly options: NatsServerOptions,
    private readonly httpPort: number,
  ) {}

  static async start(options: NatsServerOptions = {}): Promise<TestNatsServer> {
    const server = new TestNatsServer(await freePort(), options, await freePort());
    await server.startProcess();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** The server's monitoring endpoint (`/connz`, `/varz`, …). */
  get monitorUrl(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  /** The open client connections, by the name each gave (natsConnectionOptions names them after their process). */
  async connectionsByName(): Promise<Record<string, number>> {
    const connz = (await (await fetch(`${this.monitorUrl}/connz?limit=1024`)).json()) as { connections?: { name?: string }[] };
    const counts: Record<string, number> = {};
    for (const c of connz.connections ?? []) counts[c.name ?? ''] = (counts[c.name ?? ''] ?? 0) + 1;
    return counts;
  }

  /** What a process under test reads: this server, and every route's messages checked against their schemas. */
  get env(): { NATS_URL: string; NATS_CHECK_MESSAGES: 'true' } {
    return { NATS_URL: this.url, NATS_CHECK_MESSAGES: 'true' };
  }

  /** Stops the server; clients see a disconnect. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  /** Starts it again on the same port with the same JetStream storage. */
  async restart(): Promise<void> {
    await this.stop();
    await this.startProcess();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.storeDir, { recursive: true, force: true });
  }

  private async startProcess(): Promise<void> {
    const config = this.options.config ? ['-c', this.options.config] : [];
    const args = [
      ...config,
      '-m',
      String(this.httpPort),
      '-a',
      '127.0.0.1',
      '-p',
      String(this.port),
      '-js',
      '-sd',
      this.storeDir,
      ...(this.options.args ?? []),
    ];
    const child = spawn(natsServerBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...this.options.env } });
    this.process = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${output}`)), 10_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`nats-server exited with ${code}:\n${output}`));
      });
    });
    child.stderr!.resume();
  }
}
