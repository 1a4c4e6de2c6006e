import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
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
  /**
   * Each node in a network namespace of its own (its own address on a bridge, the standard
   * ports), so that partition() can cut it off. Needs root (TestNatsCluster.canIsolate()).
   */
  isolated?: boolean;
}

/** The network of an isolated cluster: a bridge in this namespace, one namespace and veth per node. */
interface Isolation {
  suffix: string;
  subnet: string;
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
  private isolation: Isolation | null = null;

  /** Whether this process may make network namespaces (root, `ip netns` working). */
  static canIsolate(): boolean {
    if (process.getuid?.() !== 0) return false;
    const probe = `tiprobe${randomBytes(3).toString('hex')}`;
    try {
      execFileSync('ip', ['netns', 'add', probe], { stdio: 'ignore' });
      execFileSync('ip', ['netns', 'del', probe], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }

  private constructor(private readonly options: NatsClusterOptions) {}

  static async start(options: NatsClusterOptions = {}): Promise<TestNatsCluster> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await TestNatsCluster.startOnce(options);
      } catch (err) {
        // Free ports are picked before the servers bind them: another process (a test file beside
        // this one) may take one meanwhile. Picked again, up to three times.
        const raced = !options.isolated && !options.ports && /address already in use/.test((err as Error).message);
        if (!raced || attempt >= 3) throw err;
      }
    }
  }

  private static async startOnce(options: NatsClusterOptions): Promise<TestNatsCluster> {
    const cluster = new TestNatsCluster(options);
    const size = options.size ?? 3;
    for (let i = 0; i < size; i++) {
      const ports = options.isolated
        ? { client: 4222, cluster: 6222, http: 8222 }
        : (options.ports?.[i] ?? { client: await freePort(), cluster: await freePort(), http: await freePort() });
      cluster.nodes.push({ name: `n${i + 1}`, ...ports, storeDir: join(cluster.root, `n${i + 1}`), process: null, log: '' });
    }
    try {
      if (options.isolated) cluster.isolate();
      await Promise.all(cluster.nodes.map((_, i) => cluster.startNode(i)));
      await cluster.waitHealthy();
    } catch (err) {
      await cluster.dispose();
      throw err;
    }
    return cluster;
  }

  /** The address node `i` listens on. */
  hostOf(i: number): string {
    return this.isolation ? `${this.isolation.subnet}.${10 + i}` : (this.options.host ?? '127.0.0.1');
  }

  /** Every node, comma-separated: a NATS_URL. */
  get url(): string {
    return this.nodes.map((_, i) => this.nodeUrl(i)).join(',');
  }

  get size(): number {
    return this.nodes.length;
  }

  nodeUrl(i: number): string {
    return `nats://${this.hostOf(i)}:${this.nodes[i]!.client}`;
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

  /** The client connections node `i` holds now (its monitoring endpoint), with their names. */
  async clientsOf(i: number): Promise<string[]> {
    const res = await fetch(`http://${this.hostOf(i)}:${this.nodes[i]!.http}/connz?limit=1024`, { signal: AbortSignal.timeout(1_000) });
    const body = (await res.json()) as { connections?: { name?: string }[] };
    return (body.connections ?? []).map((c) => c.name ?? '?');
  }

  /** Cuts node `i` off the network (its link down): no reset, its peers and clients just stop hearing from it. */
  partition(i: number): void {
    if (!this.isolation) throw new Error('partition() needs an isolated cluster');
    execFileSync('ip', ['link', 'set', `tiv${this.isolation.suffix}${i}`, 'down']);
  }

  /** Puts node `i` back on the network. */
  heal(i: number): void {
    if (!this.isolation) throw new Error('heal() needs an isolated cluster');
    execFileSync('ip', ['link', 'set', `tiv${this.isolation.suffix}${i}`, 'up']);
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
            async (n, i) =>
              n.process === null ||
              (await fetch(`http://${this.hostOf(i)}:${n.http}/healthz`).then(
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
    if (this.isolation) {
      const { suffix } = this.isolation;
      const quietly = (...args: string[]) => {
        try {
          execFileSync('ip', args, { stdio: 'ignore' });
        } catch {
          // already gone
        }
      };
      for (let i = 0; i < this.nodes.length; i++) quietly('netns', 'del', `ti${suffix}n${i}`);
      quietly('link', 'del', `tib${suffix}`);
      this.isolation = null;
    }
    rmSync(this.root, { recursive: true, force: true });
  }

  /** A bridge here (the subnet's .1) and, per node, a namespace with a veth on it (.10, .11, …). */
  private isolate(): void {
    const used = execFileSync('ip', ['-o', 'addr'], { encoding: 'utf8' });
    let subnet = '';
    do subnet = `198.18.${randomInt(1, 255)}`;
    while (used.includes(`${subnet}.`));
    const suffix = randomBytes(3).toString('hex');
    const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
    this.isolation = { suffix, subnet };
    ip('link', 'add', `tib${suffix}`, 'type', 'bridge');
    ip('addr', 'add', `${subnet}.1/24`, 'dev', `tib${suffix}`);
    ip('link', 'set', `tib${suffix}`, 'up');
    for (let i = 0; i < this.nodes.length; i++) {
      const ns = `ti${suffix}n${i}`;
      ip('netns', 'add', ns);
      ip('link', 'add', `tiv${suffix}${i}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      ip('link', 'set', `tiv${suffix}${i}`, 'master', `tib${suffix}`);
      ip('link', 'set', `tiv${suffix}${i}`, 'up');
      ip('-n', ns, 'addr', 'add', `${subnet}.${10 + i}/24`, 'dev', 'eth0');
      ip('-n', ns, 'link', 'set', 'eth0', 'up');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
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
    const routes = this.nodes.map((n, j) => `nats://${this.hostOf(j)}:${n.cluster}`).filter((_, j) => j !== i);
    const args = [
      ...(this.options.config ? ['-c', this.options.config] : []),
      '-a',
      this.hostOf(i),
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
      `nats://${this.hostOf(i)}:${node.cluster}`,
      '--routes',
      routes.join(','),
      ...(this.options.args ?? []),
    ];
    // `ip netns exec` execs the server in the node's namespace: the child is the server itself.
    const [command, argv] = this.isolation
      ? ['ip', ['netns', 'exec', `ti${this.isolation.suffix}n${i}`, natsServerBinary(), ...args]]
      : [natsServerBinary(), args];
    const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...this.options.env } });
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
