import { RpcEndpoint, RpcError, RpcUnavailable, settle, type RpcCall, type RpcEndpointOptions, type RpcReplyItem } from './json-rpc.js';

/** How an endpoint stands: answering and near the highest head (`up`), answering but behind (`lagging`), not answering (`down`), not checked yet. */
export type EndpointState = 'up' | 'lagging' | 'down' | 'unknown';

/** One endpoint as `/health/services` shows it. */
export interface EndpointStatus {
  /** Scheme and host only (API keys often live in the path). */
  url: string;
  state: EndpointState;
  /** The newest head it gave (decimal), or null before it gave one. */
  head: string | null;
  /** Blocks behind the highest head of the live endpoints; null when unknown. */
  lag: number | null;
  /** Its last check's round trip, ms. */
  latencyMs: number | null;
  /** Whether reads go to it now. */
  reads: boolean;
  /** Why it is down. */
  error?: string;
}

export interface ChainRpcOptions extends RpcEndpointOptions {
  /** An endpoint more than this many blocks behind the highest head of the live ones takes no reads. Default 2. */
  maxLagBlocks?: number;
  /** How often every endpoint's head is asked (several endpoints only). Default 1 s. */
  checkIntervalMs?: number;
  /** A check unanswered this long marks its endpoint down (and fails its calls in flight over to another). Default 2 s. */
  checkTimeoutMs?: number;
  /** Where changes of an endpoint's state are told (once per change). */
  logger?: { log(message: string): void; warn(message: string): void };
  /** What the log lines call the chain (`chain 1`). */
  name?: string;
}

/**
 * The node answered for a chain behind what was already seen (no block, or a head below one read
 * before): a node of several that lags, or a load-balanced URL whose answer came from one. Not a
 * failure: the caller waits and reads again.
 */
export class NodeBehind extends Error {
  override readonly name = 'NodeBehind';
}

/** Methods that hand the node something to spread: sent to every live endpoint, not read from one. */
const SENDS = new Set(['eth_sendRawTransaction', 'eth_sendRawTransactionConditional', 'eth_sendPrivateTransaction', 'eth_sendBundle', 'mev_sendBundle']);

/** One endpoint of a ChainRpc, with what its checks found. */
class Node {
  state: EndpointState = 'unknown';
  latencyMs: number | null = null;
  error: string | null = null;
  checking = false;
  /** Rejects when the endpoint is marked down: its calls in flight then fail over (see guard). */
  private down!: Promise<never>;
  private trip!: (err: Error) => void;
  private single: ChainRpc | null = null;

  constructor(
    readonly rpc: RpcEndpoint,
    readonly owner: ChainRpc,
    readonly pooled: boolean,
  ) {
    this.arm();
  }

  arm(): void {
    this.down = new Promise<never>((_, reject) => (this.trip = reject));
    this.down.catch(() => undefined);
  }

  markDown(err: Error): void {
    this.trip(err);
  }

  /** `work`, failed at once when the endpoint is marked down meanwhile (a call to an endpoint already down just runs). */
  guard<T>(work: Promise<T>): Promise<T> {
    return this.pooled && this.state !== 'down' ? Promise.race([work, this.down]) : work;
  }

  /** This endpoint alone, as a ChainRpc (no failover). */
  view(options: ChainRpcOptions): ChainRpc {
    return (this.single ??= new ChainRpc(this.rpc.url, options, [this]));
  }
}

const redact = (url: string): string => {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the node';
  }
};

/**
 * A chain's JSON-RPC over one endpoint or several (`RPC_URL_<id>`): the one client of every
 * service. Reads go to the first live endpoint within `maxLagBlocks` of the highest head; writes
 * to every live one; `pinned()` and `atLeast()` give one endpoint alone
 * (docs/design/chain-endpoints.md, docs/design/code-notes.md#chain-rpc).
 */
export class ChainRpc {
  /** The first endpoint's URL. */
  readonly url: string;
  private readonly nodes: Node[];
  private reader: Node;
  private timer: NodeJS.Timeout | null = null;
  private readonly maxLag: bigint;
  private readonly checkTimeoutMs: number;
  private readonly logger: ChainRpcOptions['logger'];
  private readonly name: string;

  /** `nodes`: internal (an endpoint's view of itself). */
  constructor(
    urls: string | readonly string[],
    private readonly options: ChainRpcOptions = {},
    nodes?: Node[],
  ) {
    const list = typeof urls === 'string' ? [urls] : [...urls];
    if (list.length === 0) throw new Error('ChainRpc: no endpoint URL');
    const pooled = list.length > 1;
    this.nodes = nodes ?? list.map((url) => new Node(new RpcEndpoint(url, options), this, pooled));
    this.url = this.nodes[0]!.rpc.url;
    this.reader = this.nodes[0]!;
    this.maxLag = BigInt(options.maxLagBlocks ?? 2);
    this.checkTimeoutMs = options.checkTimeoutMs ?? 2_000;
    this.logger = options.logger;
    this.name = options.name ?? 'chain';
    if (!nodes && pooled) {
      const interval = options.checkIntervalMs ?? 1_000;
      const tick = () => {
        void this.check().finally(() => {
          if (this.timer === null) return;
          this.timer = setTimeout(tick, interval);
          this.timer.unref();
        });
      };
      this.timer = setTimeout(tick, 0);
      this.timer.unref();
    }
  }

  /** How many endpoints it has. */
  get size(): number {
    return this.nodes.length;
  }

  /** HTTP requests made so far, every endpoint's (a batch is one; checks are not counted). */
  get roundTrips(): number {
    return this.nodes.reduce((n, node) => n + node.rpc.roundTrips, 0);
  }

  /** Stops the background checks. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One call; its result, or an RpcError (the node said no) or RpcUnavailable. A send goes to every live endpoint. */
  call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    if (this.nodes.length > 1 && SENDS.has(method)) return this.broadcast((n) => n.rpc.call<T>(method, params));
    return this.read((n) => n.rpc.call<T>(method, params));
  }

  /**
   * Many calls in one HTTP request (several past maxBatch); replies in the calls' order, each
   * with its result or error. Rejects only with an RpcUnavailable, when the node gave no usable
   * answer to the batch as a whole. A batch holding sends goes to every live endpoint; each call
   * then has the first endpoint's acceptance, else the reading endpoint's refusal.
   */
  async batch<T = unknown>(calls: RpcCall[]): Promise<RpcReplyItem<T>[]> {
    if (calls.length === 0) return [];
    if (this.nodes.length > 1 && calls.some((c) => SENDS.has(c.method))) return this.broadcastBatch<T>(calls);
    return this.read((n) => n.rpc.batch<T>(calls));
  }

  /** `batch`, throwing the first call's error (RpcError or RpcUnavailable). */
  async all<T = unknown>(calls: RpcCall[]): Promise<T[]> {
    const replies = await this.batch<T>(calls);
    return replies.map((r, i) => settle(calls[i]!.method, r) as T);
  }

  /**
   * `calls` on every live endpoint at once (one batch each, cut when its endpoint is marked
   * down): each answering endpoint's replies. Rejects when none answered.
   */
  async fromEach<T = unknown>(calls: RpcCall[]): Promise<RpcReplyItem<T>[][]> {
    if (calls.length === 0) return [];
    if (this.nodes.length === 1) return [await this.read((n) => n.rpc.batch<T>(calls))];
    const targets = this.targets(true);
    const answers = await Promise.all(
      targets.map((n) =>
        n.guard(n.rpc.batch<T>(calls)).catch((err: Error) => {
          if (err instanceof RpcUnavailable) this.markDown(n, err);
          return err;
        }),
      ),
    );
    const batches = answers.filter((a): a is RpcReplyItem<T>[] => !(a instanceof Error));
    if (batches.length === 0) throw this.pickError(targets, (t) => answers[targets.indexOf(t)] as Error);
    // The reading endpoint's first: its error is the one told when none has a result.
    const reader = answers[targets.indexOf(this.reader)];
    return reader && !(reader instanceof Error) ? [reader, ...batches.filter((b) => b !== reader)] : batches;
  }

  /**
   * `calls` on every live endpoint (fromEach): per call, the first non-null result, else null when
   * one answered null, else the reading endpoint's error. For what one node may not have yet and
   * another has (a transaction just announced, a receipt): "nowhere" is then every live
   * endpoint's answer.
   */
  async everywhere<T = unknown>(calls: RpcCall[]): Promise<RpcReplyItem<T | null>[]> {
    const batches = await this.fromEach<T | null>(calls);
    return calls.map((_, i) => {
      const items = batches.map((b) => b[i]!);
      return items.find((r) => !r.error && r.result !== null && r.result !== undefined) ?? items.find((r) => !r.error) ?? items[0]!;
    });
  }

  /** The endpoint reads go to now, alone: for a sequence of reads that must all see one node's chain. */
  pinned(): ChainRpc {
    return this.nodes.length === 1 ? this : this.reader.view(this.options);
  }

  /**
   * Reads at block `block`: this client while its reading endpoint has that block (or its head is
   * unknown), else an endpoint alone whose head has reached it (no round trip: the heads known).
   */
  atLeast(block: bigint): ChainRpc {
    if (this.nodes.length === 1) return this;
    const has = (n: Node) => n.state !== 'down' && n.rpc.head !== null && n.rpc.head >= block;
    if (this.reader.rpc.head === null || has(this.reader)) return this;
    const other = this.nodes.find(has);
    return other ? other.view(this.options) : this;
  }

  /**
   * Takes reads away from `view`'s endpoint (one of this client's, alone: see pinned) until its
   * next good check: it answered for a chain behind its own head (no block it said it had). True
   * when another endpoint reads now.
   */
  demote(view: ChainRpc, why: string): boolean {
    const n = view.nodes.length === 1 ? view.nodes[0]! : undefined;
    if (!n || this.nodes.length === 1 || !this.nodes.includes(n)) return false;
    this.markDown(n, new RpcUnavailable('bad_answer', why, why));
    return this.reader !== n && this.reader.state !== 'down';
  }

  /** Every endpoint alone (state a node keeps for its caller, such as a filter, lives on one). */
  endpoints(): ChainRpc[] {
    return this.nodes.length === 1 ? [this] : this.nodes.map((n) => n.view(this.options));
  }

  /** The highest head the live endpoints gave; null before any gave one. */
  highestHead(): bigint | null {
    let best: bigint | null = null;
    for (const n of this.nodes) if (n.state !== 'down' && n.rpc.head !== null && (best === null || n.rpc.head > best)) best = n.rpc.head;
    return best;
  }

  /** Each endpoint's state as last checked. */
  status(): EndpointStatus[] {
    const best = this.highestHead();
    return this.nodes.map((n) => ({
      url: redact(n.rpc.url),
      state: n.state,
      head: n.rpc.head === null ? null : n.rpc.head.toString(),
      lag: n.rpc.head === null || best === null ? null : Number(best > n.rpc.head ? best - n.rpc.head : 0n),
      latencyMs: n.latencyMs,
      reads: n === this.reader,
      ...(n.error && n.state === 'down' ? { error: n.error } : {}),
    }));
  }

  /**
   * Each endpoint's state, checked now where no background check runs (a single endpoint: its
   * head asked, waited for `waitMs` at most); with several, as the background check last found it.
   */
  async checkedStatus(waitMs = 500): Promise<EndpointStatus[]> {
    if (this.nodes.length === 1 && this.nodes[0]!.owner === this) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.check(), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    }
    return this.status();
  }

  /** Asks every endpoint's head (bounded by checkTimeoutMs) and chooses where reads go. */
  async check(): Promise<void> {
    await Promise.all(this.nodes.map((n) => this.checkOne(n)));
    this.choose();
  }

  private async checkOne(n: Node): Promise<void> {
    if (n.checking) return;
    n.checking = true;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const ms = this.checkTimeoutMs;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new RpcUnavailable('timeout', `eth_blockNumber: no answer within ${ms} ms`, `no answer within ${ms} ms`)), ms);
      });
      await Promise.race([n.rpc.blockNumber(), late]);
      n.latencyMs = Math.round((performance.now() - started) * 10) / 10;
      n.error = null;
      if (n.state === 'down') n.arm();
      if (n.state === 'down' || n.state === 'unknown') n.state = 'up';
    } catch (err) {
      this.markDown(n, err instanceof RpcUnavailable || err instanceof RpcError ? err : new RpcUnavailable('bad_answer', String(err), String(err)));
    } finally {
      clearTimeout(timer);
      n.checking = false;
    }
  }

  /** Marks an endpoint down (its calls in flight fail over) until a check finds it answering. */
  private markDown(n: Node, err: Error): void {
    n.error = err instanceof RpcUnavailable ? err.detail : err instanceof RpcError ? err.detail : err.message;
    if (n.state !== 'down') {
      const was = n.state;
      n.state = 'down';
      n.markDown(new RpcUnavailable('unreachable', `${redact(n.rpc.url)} was marked down (${n.error})`, `marked down: ${n.error}`));
      if (this.nodes.length > 1 || was !== 'unknown') this.logger?.warn(`${this.name}: endpoint ${redact(n.rpc.url)} is down (${n.error})`);
    }
    this.choose();
  }

  /** Marks lagging endpoints and picks the one reads go to. */
  private choose(): void {
    const best = this.highestHead();
    for (const n of this.nodes) {
      if (n.state === 'down' || n.state === 'unknown' || n.rpc.head === null || best === null) continue;
      const state = best - n.rpc.head > this.maxLag ? 'lagging' : 'up';
      if (state !== n.state && this.nodes.length > 1) {
        if (state === 'lagging')
          this.logger?.warn(
            `${this.name}: endpoint ${redact(n.rpc.url)} is ${best - n.rpc.head} blocks behind (head ${n.rpc.head}): no reads until it catches up`,
          );
        else this.logger?.log(`${this.name}: endpoint ${redact(n.rpc.url)} is up at head ${n.rpc.head}`);
      }
      n.state = state;
    }
    const live = this.nodes.filter((n) => n.state !== 'down');
    const reader =
      this.nodes.find((n) => n.state === 'up' || n.state === 'unknown') ??
      live.sort((a, b) => (a.rpc.head === b.rpc.head ? 0 : (a.rpc.head ?? -1n) > (b.rpc.head ?? -1n) ? -1 : 1))[0] ??
      this.reader;
    if (reader !== this.reader && this.nodes.length > 1) this.logger?.log(`${this.name}: reads go to ${redact(reader.rpc.url)} now`);
    this.reader = reader;
  }

  /** `work` on the reading endpoint; once more on the next when that one gives no usable answer. */
  private async read<T>(work: (n: Node) => Promise<T>): Promise<T> {
    const first = this.reader;
    try {
      return await this.attempt(first, work);
    } catch (err) {
      if (!(err instanceof RpcUnavailable) || this.nodes.length === 1) throw err;
      const next = this.reader;
      if (next === first || next.state === 'down') throw err;
      return this.attempt(next, work);
    }
  }

  private async attempt<T>(n: Node, work: (n: Node) => Promise<T>): Promise<T> {
    try {
      const value = await n.guard(work(n));
      if (!n.pooled && n.state !== 'up') {
        n.state = 'up';
        n.error = null;
      }
      return value;
    } catch (err) {
      if (err instanceof RpcUnavailable) n.owner.markDown(n, err);
      throw err;
    }
  }

  /** The live endpoints (all of them when none is); for reads, those not lagging (while one is not). */
  private targets(reads: boolean): Node[] {
    const live = this.nodes.filter((n) => n.state !== 'down');
    const fresh = reads ? live.filter((n) => n.state !== 'lagging') : live;
    return fresh.length > 0 ? fresh : live.length > 0 ? live : this.nodes;
  }

  /** `work` on every live endpoint: the first success, else the reading endpoint's refusal (or another's, or why none answered). */
  private broadcast<T>(work: (n: Node) => Promise<T>): Promise<T> {
    const targets = this.targets(false);
    return new Promise<T>((resolve, reject) => {
      const errors = new Map<Node, Error>();
      for (const n of targets) {
        work(n).then(resolve, (err: Error) => {
          if (err instanceof RpcUnavailable) this.markDown(n, err);
          errors.set(n, err);
          if (errors.size === targets.length) reject(this.pickError(targets, (t) => errors.get(t)));
        });
      }
    });
  }

  private async broadcastBatch<T>(calls: RpcCall[]): Promise<RpcReplyItem<T>[]> {
    const targets = this.targets(false);
    const answers = await new Promise<Map<Node, RpcReplyItem<T>[] | Error>>((resolve) => {
      const got = new Map<Node, RpcReplyItem<T>[] | Error>();
      const done = () => got.size === targets.length && resolve(got);
      for (const n of targets) {
        n.rpc.batch<T>(calls).then(
          (replies) => {
            got.set(n, replies);
            // Every call accepted by one endpoint: no need to wait for the others.
            if (replies.every((r) => !r.error)) resolve(new Map([[n, replies]]));
            done();
          },
          (err: Error) => {
            if (err instanceof RpcUnavailable) this.markDown(n, err);
            got.set(n, err);
            done();
          },
        );
      }
    });
    const batches = targets.flatMap((n) => {
      const a = answers.get(n);
      return a && !(a instanceof Error) ? [{ n, replies: a }] : [];
    });
    if (batches.length === 0) throw this.pickError(targets, (t) => answers.get(t) as Error | undefined);
    return calls.map((_, i) => {
      const accepted = batches.find((b) => !b.replies[i]!.error);
      if (accepted) return accepted.replies[i]!;
      const refused = batches.find((b) => b.n === this.reader && b.replies[i]!.error && !(b.replies[i]!.error instanceof RpcUnavailable));
      return (refused ?? batches.find((b) => !(b.replies[i]!.error instanceof RpcUnavailable)) ?? batches[0]!).replies[i]!;
    });
  }

  /** The reading endpoint's refusal, else another's, else why none answered. */
  private pickError(targets: Node[], errorOf: (n: Node) => Error | undefined): Error {
    const refusal = (n: Node) => {
      const e = errorOf(n);
      return e instanceof RpcError ? e : undefined;
    };
    return refusal(this.reader) ?? targets.map(refusal).find(Boolean) ?? errorOf(this.reader) ?? errorOf(targets[0]!) ?? new Error('no endpoint');
  }
}
