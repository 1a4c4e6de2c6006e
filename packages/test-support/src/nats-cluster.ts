import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { freePort, natsServerBinary } from './nats-server.js';
import { eventually } from './wait.js';

export interface NatsClusterOptions {
  /** Nodes (default 3). */
  size?: number;
  /** A configuration file every node starts with (flags below override its listen, store and cluster settings). */
  config?: string;
  /** Environment of the servers (the variables a configuration file refers to). */
  env?: NodeJS.ProcessEnv;
  /** Extra flags for every node (e.g. TLS). */
  args?: string[];
  /** Address every node listens on (clients and routes); default 127.0.0.1. */
  host?: string;
  /** Fixed ports instead of free ones: client, cluster and monitoring port of each node. */
  ports?: { client: number; cluster: number; http: number }[];
  /** Cluster name (default "test"). */
  name?: string;
  /** The user streamLeader/streamInfo ask as, where the configuration has users. */
  admin?: { user: string; pass: string };
}

interface Node {
  name: string;
  client: number;
  cluster: number;
  http: number;
  storeDir: string;
  process: ChildProcess | null;
  log: string;
}

/**
 * A private NATS cluster with JetStream on this machine: `size` nodes (n1, n2, …) with routes to
 * each other, each with its own storage, that a test can kill -9 and start again (same ports,
 * same storage) and ask which node leads a stream.
 */
export class TestNatsCluster {
  private readonly nodes: Node[] = [];
  private readonly root = mkdtempSync(join(tmpdir(), 'nats-cluster-'));
  private admin: NatsConnection | null = null;

  private constructor(private readonly options: NatsClusterOptions) {}

  static async start(options: NatsClusterOptions = {}): Promise<TestNatsCluster> {
    const cluster = new TestNatsCluster(options);
    const size = options.size ?? 3;
    for (let i = 0; i < size; i++) {
      const ports = options.ports?.[i] ?? { client: await freePort(), cluster: await freePort(), http: await freePort() };
      cluster.nodes.push({ name: `n${i + 1}`, ...ports, storeDir: join(cluster.root, `n${i + 1}`), process: null, log: '' });
    }
    try {
      await Promise.all(cluster.nodes.map((_, i) => cluster.startNode(i)));
      await cluster.waitHealthy();
    } catch (err) {
      await cluster.dispose();
      throw err;
    }
    return cluster;
  }

  get host(): string {
    return this.options.host ?? '127.0.0.1';
  }

  /** Every node, comma-separated: a NATS_URL. */
  get url(): string {
    return this.nodes.map((_, i) => this.nodeUrl(i)).join(',');
  }

  get size(): number {
    return this.nodes.length;
  }

  nodeUrl(i: number): string {
    return `nats://${this.host}:${this.nodes[i]!.client}`;
  }

  nodeName(i: number): string {
    return this.nodes[i]!.name;
  }

  /** The node's server log so far (for a failing test's message). */
  nodeLog(i: number): string {
    return this.nodes[i]!.log;
  }

  isRunning(i: number): boolean {
    return this.nodes[i]!.process !== null;
  }

  /** kill -9: no goodbye to clients or peers. */
  async kill(i: number): Promise<void> {
    const node = this.nodes[i]!;
    const child = node.process;
    if (!child) return;
    node.process = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  /** Starts a stopped node again with its ports and storage. */
  async restart(i: number): Promise<void> {
    await this.kill(i);
    await this.startNode(i);
  }

  /** The index of the node leading `stream` (its Raft group), asked of any running node. */
  async streamLeader(stream: string): Promise<number> {
    const info = await this.jsApi(`$JS.API.STREAM.INFO.${stream}`);
    const leader = (info as { cluster?: { leader?: string } }).cluster?.leader;
    const index = this.nodes.findIndex((n) => n.name === leader);
    if (index < 0) throw new Error(`stream ${stream} has no leader (${JSON.stringify(info)})`);
    return index;
  }

  /** The replicas of `stream` and whether each is current. */
  async streamInfo(stream: string): Promise<{ replicas: number; leader?: string; peers: { name: string; current: boolean }[]; messages: number }> {
    const info = (await this.jsApi(`$JS.API.STREAM.INFO.${stream}`)) as {
      config: { num_replicas: number };
      cluster?: { leader?: string; replicas?: { name: string; current: boolean }[] };
      state: { messages: number };
    };
    return { replicas: info.config.num_replicas, leader: info.cluster?.leader, peers: info.cluster?.replicas ?? [], messages: info.state.messages };
  }

  /** Resolves once every running node says it is healthy (JetStream included). */
  async waitHealthy(timeoutMs = 30_000): Promise<void> {
    await eventually(
      'NATS cluster healthy',
      async () => {
        const states = await Promise.all(
          this.nodes.map(
            async (n) =>
              n.process === null ||
              (await fetch(`http://${this.host}:${n.http}/healthz`).then(
                (r) => r.ok,
                () => false,
              )),
          ),
        );
        return states.every(Boolean);
      },
      timeoutMs,
      100,
    );
  }

  async dispose(): Promise<void> {
    await this.admin?.close().catch(() => undefined);
    this.admin = null;
    await Promise.all(this.nodes.map((_, i) => this.kill(i)));
    rmSync(this.root, { recursive: true, force: true });
  }

  /** One JetStream API request (as `options.admin` where the configuration has users). */
  private async jsApi(subject: string): Promise<unknown> {
    this.admin ??= await connect({
      servers: this.nodes.map((_, i) => this.nodeUrl(i)),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
      name: 'test-cluster-admin',
      ...(this.options.admin ? { ...this.options.admin, inboxPrefix: `_INBOX_${this.options.admin.user}` } : {}),
    });
    const reply = (await this.admin.request(subject, '', { timeout: 3_000 })).json<{ error?: { description: string } }>();
    if (reply.error) throw new Error(`${subject}: ${reply.error.description}`);
    return reply;
  }

  private async startNode(i: number): Promise<void> {
    const node = this.nodes[i]!;
    const routes = this.nodes.filter((_, j) => j !== i).map((n) => `nats://${this.host}:${n.cluster}`);
    const args = [
      ...(this.options.config ? ['-c', this.options.config] : []),
      '-a',
      this.host,
      '-p',
      String(node.client),
      '-m',
      String(node.http),
      '-js',
      '-sd',
      node.storeDir,
      '--server_name',
      node.name,
      '--cluster_name',
      this.options.name ?? 'test',
      '--cluster',
      `nats://${this.host}:${node.cluster}`,
      '--routes',
      routes.join(','),
      ...(this.options.args ?? []),
    ];
    const child = spawn(natsServerBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...this.options.env } });
    node.process = child;
    node.log = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      node.log = (node.log + chunk.toString()).slice(-20_000);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nats-server ${node.name} did not start:\n${node.log}`)), 15_000);
      const check = () => {
        if (node.log.includes('Server is ready')) {
          clearTimeout(timer);
          child.stderr!.off('data', check);
          resolve();
        }
      };
      child.stderr!.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (node.process === child) node.process = null;
        reject(new Error(`nats-server ${node.name} exited with ${code}:\n${node.log}`));
      });
    });
  }
}
