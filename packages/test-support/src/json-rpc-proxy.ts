import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { accessListFromStructLogs, type StructLog } from './access-list.js';

/**
 * A JSON-RPC pass-through in front of a node, for tests and benchmarks. Every HTTP request is
 * forwarded to `upstream` (its path) and the answer goes back as it came. On top:
 * - `delayMs`: each request is held that long first (a remote node's round trip);
 * - counters: HTTP requests (= round trips: a batch is one), calls by method, batch sizes, and
 *   the last `traceLimit` requests' methods, so a benchmark can tell what one operation cost;
 * - `recordLimit`: timing records per request (arrival, answer, methods, the client named by the
 *   URL path it was given: `http://proxy/intent` → `intent`);
 * - `holdSends(promise)`: requests carrying eth_sendRawTransaction wait for the promise (a node
 *   briefly out of reach for sends);
 * - `sendBatchesLastFirst`: a batch holding transactions is forwarded item by item, last first, as
 *   JSON-RPC 2.0 allows (a node may process a batch's items in any order);
 * - `emulateAccessList`: it answers eth_createAccessList itself, for nodes that lack it (hardhat),
 *   from debug_traceCall's struct logs, inside the same delayed round trip; a reverting call gets
 *   the list up to the revert plus `error`, as geth answers.
 * - `fault(f)`: one endpoint of several going bad (see ProxyFault): a stale head, `null` blocks,
 *   stalled requests, or dead (connections refused); `fault(null)` heals it;
 * - WebSocket upgrades are passed through to the node (its `eth_subscribe`), and cut while dead.
 * Over HTTP: `GET /__proxy/stats` (the counters), `POST /__proxy/reset`, `GET /__proxy/records`
 * (the timing records since the last call, which starts them over).
 */
export interface JsonRpcProxyOptions {
  upstream: string;
  delayMs?: number;
  port?: number;
  host?: string;
  traceLimit?: number;
  /** Keep up to this many timing records (default 0: none). */
  recordLimit?: number;
  maxBodyBytes?: number;
  emulateAccessList?: boolean;
  sendBatchesLastFirst?: boolean;
}

/**
 * What goes wrong with the node behind the proxy:
 * - `stale`: it serves the chain as it was at block `head` (a node that stopped following, or one
 *   a few blocks behind): that head, no block, receipt or log after it, and state reads at
 *   `latest` answered at `head` (a later block: "header not found");
 * - `null`: it answers `null` for every numbered block and every receipt while its head moves on
 *   (a load-balanced URL whose next answer came from a node behind);
 * - `stall`: requests are taken and never answered (until healed);
 * - `down`: connections are refused, open ones cut (WebSockets too).
 */
export type ProxyFault = { kind: 'stale'; head: bigint } | { kind: 'null' } | { kind: 'stall' } | { kind: 'down' };

/** State reads whose last parameter is a block tag. */
const TAGGED = new Set(['eth_call', 'eth_getBalance', 'eth_getCode', 'eth_getTransactionCount', 'eth_getStorageAt', 'eth_estimateGas', 'eth_createAccessList']);

export interface ProxyCounters {
  requests: number;
  calls: number;
  byMethod: Record<string, number>;
  batchSizes: Record<string, number>;
  upstreamErrors: number;
  unparsable: number;
  emulatedAccessLists: number;
}

export interface ProxyTraceEntry {
  seq: number;
  at: number;
  methods: string[];
  params: unknown[][];
}

export interface ProxyRecord {
  client: string;
  /** Unix ms of arrival and of the answer. */
  start: number;
  end: number;
  ms: number;
  methods: Record<string, number>;
  bytes: number;
}

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

interface Answer {
  status: number;
  body: Buffer;
  contentType: string;
}

export class JsonRpcProxy {
  private readonly target: URL;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly server: http.Server;
  private counters = fresh();
  /** Never reset: everything since the proxy started. */
  private readonly lifetime = fresh();
  private traceLog: ProxyTraceEntry[] = [];
  private records: ProxyRecord[] = [];
  private seq = 0;
  private held: Promise<void> | null = null;
  private current: ProxyFault | null = null;
  /** Requests held by a `stall`, let go (with a 502) when it is healed. */
  private stalled = new Set<() => void>();
  private readonly sockets = new Set<Socket>();
  readonly delayMs: number;
  url = '';
  port = 0;

  private constructor(private readonly options: JsonRpcProxyOptions) {
    this.target = new URL(options.upstream);
    if (this.target.protocol !== 'http:') throw new Error(`JSON-RPC proxy: upstream must be http:// (got ${options.upstream})`);
    this.delayMs = options.delayMs ?? 0;
    this.server = http.createServer((req, res) => this.onRequest(req, res));
    this.server.keepAliveTimeout = 60_000;
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.onUpgrade(req, socket, head));
  }

  static async start(options: JsonRpcProxyOptions): Promise<JsonRpcProxy> {
    const proxy = new JsonRpcProxy(options);
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(options.port ?? 0, host, resolve);
    });
    proxy.port = (proxy.server.address() as AddressInfo).port;
    proxy.url = `http://${host}:${proxy.port}`;
    return proxy;
  }

  /** While `until` is pending, requests carrying eth_sendRawTransaction wait (null: let them through). */
  holdSends(until: Promise<void> | null): void {
    this.held = until;
  }

  /** The WebSocket URL of the same endpoint (the node's `eth_subscribe`, through the proxy). */
  get wsUrl(): string {
    return this.url.replace(/^http/, 'ws');
  }

  /** Makes the node behind go bad in one way (ProxyFault), or heals it (null). */
  async fault(fault: ProxyFault | null): Promise<void> {
    const was = this.current;
    this.current = fault;
    if (was?.kind === 'stall' && fault?.kind !== 'stall') {
      for (const release of this.stalled) release();
      this.stalled.clear();
    }
    if (fault?.kind === 'down' && was?.kind !== 'down') {
      await new Promise<void>((resolve) => {
        this.server.close(() => resolve());
        for (const socket of this.sockets) socket.destroy();
      });
    }
    if (was?.kind === 'down' && fault?.kind !== 'down') {
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(this.port, this.options.host ?? '127.0.0.1', () => {
          this.server.off('error', reject);
          resolve();
        });
      });
    }
  }

  /** Counters since the last reset (or the start). */
  stats(): ProxyCounters {
    return snapshot(this.counters);
  }

  /** Counters since the start (reset leaves them alone). */
  totals(): ProxyCounters {
    return snapshot(this.lifetime);
  }

  reset(): void {
    this.counters = fresh();
    this.traceLog = [];
  }

  /** The requests seen since the last reset (at most traceLimit). */
  trace(): ProxyTraceEntry[] {
    return this.traceLog.slice();
  }

  /** The timing records since the last call; starts them over. */
  takeRecords(): ProxyRecord[] {
    const records = this.records;
    this.records = [];
    return records;
  }

  async close(): Promise<void> {
    for (const release of this.stalled) release();
    this.stalled.clear();
    await new Promise<void>((resolve) => {
      if (this.current?.kind === 'down') resolve();
      else this.server.close(() => resolve());
      this.server.closeAllConnections();
      for (const socket of this.sockets) socket.destroy();
      this.agent.destroy();
    });
  }

  /** A WebSocket upgrade: the raw connection piped to the node. */
  private onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const up = net.connect(Number(this.target.port), this.target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    const cut = () => {
      up.destroy();
      socket.destroy();
    };
    up.on('error', cut);
    socket.on('error', cut);
    up.on('close', cut);
    socket.on('close', cut);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET' && req.url === '/__proxy/stats') {
      send(res, {
        status: 200,
        contentType: 'application/json',
        body: Buffer.from(JSON.stringify({ delayMs: this.delayMs, sinceReset: this.stats(), sinceStart: this.totals() })),
      });
      return;
    }
    if (req.method === 'POST' && req.url === '/__proxy/reset') {
      this.reset();
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' && req.url === '/__proxy/records') {
      send(res, { status: 200, contentType: 'application/json', body: Buffer.from(JSON.stringify({ records: this.takeRecords() })) });
      return;
    }
    const start = Date.now();
    const t0 = performance.now();
    const chunks: Buffer[] = [];
    let size = 0;
    const maxBodyBytes = this.options.maxBodyBytes ?? 64 * 1024 * 1024;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBodyBytes) {
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => {});
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const { calls, parsed } = this.count(body);
      void this.answer(body, calls, parsed).then((answer) => {
        send(res, answer);
        if (this.records.length < (this.options.recordLimit ?? 0)) {
          const methods: Record<string, number> = {};
          for (const c of calls) methods[c.method] = (methods[c.method] ?? 0) + 1;
          this.records.push({
            client: (req.url ?? '/').slice(1) || '-',
            start,
            end: Date.now(),
            ms: Math.round((performance.now() - t0) * 1000) / 1000,
            methods,
            bytes: body.length,
          });
        }
      });
    });
  }

  private async answer(body: Buffer, calls: Array<{ method: string }>, parsed: Call | Call[] | null): Promise<Answer> {
    try {
      const fault = this.current;
      if (fault?.kind === 'stall') {
        await new Promise<void>((resolve) => this.stalled.add(resolve));
        throw new Error('stalled');
      }
      if (parsed && (fault?.kind === 'stale' || fault?.kind === 'null')) {
        const list = Array.isArray(parsed) ? parsed : [parsed];
        const answers = await Promise.all(list.map((c) => this.faulty(c, fault)));
        return json(Array.isArray(parsed) ? answers : answers[0]);
      }
      if (this.held && calls.some((c) => c.method === 'eth_sendRawTransaction')) await this.held;
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      if (parsed && this.options.emulateAccessList && calls.some((c) => c.method === 'eth_createAccessList')) return await this.withAccessLists(parsed);
      if (Array.isArray(parsed) && this.options.sendBatchesLastFirst && calls.some((c) => c.method === 'eth_sendRawTransaction')) {
        const replies: unknown[] = new Array(parsed.length);
        for (let i = parsed.length - 1; i >= 0; i--) replies[i] = await this.post(parsed[i]);
        return json(replies);
      }
      return await this.forward(body);
    } catch (err) {
      this.counters.upstreamErrors++;
      this.lifetime.upstreamErrors++;
      const message = `JSON-RPC proxy: upstream error: ${(err as Error).message}`;
      return {
        status: 502,
        contentType: 'application/json',
        body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } })),
      };
    }
  }

  private count(body: Buffer): { calls: Array<{ method: string; params: unknown[] }>; parsed: Call | Call[] | null } {
    const both = [this.counters, this.lifetime];
    for (const c of both) c.requests++;
    let parsed: Call | Call[];
    try {
      parsed = JSON.parse(body.toString('utf8')) as Call | Call[];
    } catch {
      for (const c of both) c.unparsable++;
      return { calls: [], parsed: null };
    }
    const list = Array.isArray(parsed) ? parsed : [parsed];
    for (const c of both) c.batchSizes[list.length] = (c.batchSizes[list.length] ?? 0) + 1;
    const calls = list.map((call) => {
      const method = call && typeof call.method === 'string' ? call.method : '(none)';
      for (const c of both) {
        c.calls++;
        c.byMethod[method] = (c.byMethod[method] ?? 0) + 1;
      }
      return { method, params: Array.isArray(call?.params) ? call.params : [] };
    });
    if (this.traceLog.length < (this.options.traceLimit ?? 10_000)) {
      this.traceLog.push({ seq: ++this.seq, at: performance.now(), methods: calls.map((c) => c.method), params: calls.map((c) => c.params) });
    }
    return { calls, parsed };
  }

  /** The request as it came, to the node; its answer as it came. */
  private forward(body: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const t = this.target;
      const up = http.request(
        {
          hostname: t.hostname,
          port: t.port,
          path: t.pathname + t.search,
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (upRes) => {
          const parts: Buffer[] = [];
          upRes.on('data', (c: Buffer) => parts.push(c));
          upRes.on('end', () =>
            resolve({ status: upRes.statusCode ?? 502, contentType: upRes.headers['content-type'] ?? 'application/json', body: Buffer.concat(parts) }),
          );
          upRes.on('error', reject);
        },
      );
      up.on('error', reject);
      up.end(body);
    });
  }

  /** A JSON-RPC payload to the node (not counted: the proxy's own work); the parsed answer. */
  private async post(payload: unknown): Promise<any> {
    const answer = await this.forward(Buffer.from(JSON.stringify(payload)));
    return JSON.parse(answer.body.toString('utf8'));
  }

  /** One call as the faulty node answers it. */
  private async faulty(call: Call, fault: { kind: 'stale'; head: bigint } | { kind: 'null' }): Promise<unknown> {
    const reply = (result: unknown) => ({ jsonrpc: '2.0', id: call.id, result });
    const params = [...(call.params ?? [])];
    const numbered = (tag: unknown) => typeof tag === 'string' && /^0x[0-9a-f]+$/i.test(tag);
    const blockOf = (value: unknown) => {
      const n = (value as { blockNumber?: unknown } | null)?.blockNumber;
      return typeof n === 'string' ? BigInt(n) : null;
    };
    if (fault.kind === 'null') {
      if ((call.method === 'eth_getBlockByNumber' && numbered(params[0])) || call.method === 'eth_getTransactionReceipt') return reply(null);
      return this.post(call);
    }
    const head = fault.head;
    const tag = `0x${head.toString(16)}`;
    const after = (t: unknown) => numbered(t) && BigInt(t as string) > head;
    switch (call.method) {
      case 'eth_blockNumber':
        return reply(tag);
      case 'eth_getBlockByNumber':
        if (after(params[0])) return reply(null);
        if (!numbered(params[0])) params[0] = tag;
        return this.post({ ...call, params });
      case 'eth_getLogs': {
        const filter = { ...(params[0] as Record<string, unknown>) };
        if (after(filter.fromBlock)) return reply([]);
        if (filter.toBlock === undefined || !numbered(filter.toBlock) || after(filter.toBlock)) filter.toBlock = tag;
        if (!numbered(filter.fromBlock) && filter.blockHash === undefined) filter.fromBlock = tag;
        return this.post({ ...call, params: [filter] });
      }
      case 'eth_getTransactionReceipt':
      case 'eth_getTransactionByHash':
      case 'eth_getBlockByHash': {
        const answer = await this.post(call);
        const n = call.method === 'eth_getBlockByHash' ? ((answer.result as { number?: string } | null)?.number ?? null) : blockOf(answer.result);
        return n !== null && BigInt(n) > head ? reply(null) : answer;
      }
      default:
        if (TAGGED.has(call.method ?? '') && params.length > 0) {
          const last = params.length - 1;
          if (after(params[last])) return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'header not found' } };
          if (params[last] === 'latest') params[last] = tag;
          return this.post({ ...call, params });
        }
        return this.post(call);
    }
  }

  /** A request holding eth_createAccessList calls: those are emulated, the rest go to the node as one batch. */
  private async withAccessLists(parsed: Call | Call[]): Promise<Answer> {
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const passthrough = list.filter((c) => c.method !== 'eth_createAccessList');
    const [forwarded, emulated] = await Promise.all([
      passthrough.length ? this.post(passthrough) : [],
      Promise.all(list.filter((c) => c.method === 'eth_createAccessList').map((c) => this.emulatedAccessList(c))),
    ]);
    const byId = new Map<unknown, unknown>([...(Array.isArray(forwarded) ? forwarded : [forwarded]), ...emulated].map((a: { id: unknown }) => [a.id, a]));
    const answers = list.map((c) => byId.get(c.id) ?? { jsonrpc: '2.0', id: c.id, error: { code: -32603, message: 'JSON-RPC proxy: no answer' } });
    return json(Array.isArray(parsed) ? answers : answers[0]);
  }

  private async emulatedAccessList(call: Call): Promise<{ id: unknown }> {
    const [tx, block = 'latest'] = (call.params ?? []) as [{ from?: string; to?: string }, string?];
    const reply = await this.post({
      jsonrpc: '2.0',
      id: call.id,
      method: 'debug_traceCall',
      params: [tx, block, { disableMemory: true, disableStorage: true }],
    });
    if (reply.error) return { jsonrpc: '2.0', id: call.id, error: reply.error } as { id: unknown };
    this.counters.emulatedAccessLists++;
    this.lifetime.emulatedAccessLists++;
    const result = reply.result as { structLogs?: StructLog[]; gas?: number; failed?: boolean };
    const { accessList } = accessListFromStructLogs(tx, result.structLogs ?? []);
    return {
      jsonrpc: '2.0',
      id: call.id,
      result: { accessList, gasUsed: `0x${Number(result.gas ?? 0).toString(16)}`, ...(result.failed ? { error: 'execution reverted' } : {}) },
    } as { id: unknown };
  }
}

/** Difference of two `stats()` snapshots (b after a). */
export function proxyStatsDelta(a: ProxyCounters, b: ProxyCounters) {
  const byMethod: Record<string, number> = {};
  for (const [m, n] of Object.entries(b.byMethod)) {
    const d = n - (a.byMethod[m] ?? 0);
    if (d) byMethod[m] = d;
  }
  return { requests: b.requests - a.requests, calls: b.calls - a.calls, byMethod, upstreamErrors: b.upstreamErrors - a.upstreamErrors };
}

function fresh(): ProxyCounters {
  return { requests: 0, calls: 0, byMethod: {}, batchSizes: {}, upstreamErrors: 0, unparsable: 0, emulatedAccessLists: 0 };
}

function snapshot(of: ProxyCounters): ProxyCounters {
  return { ...of, byMethod: { ...of.byMethod }, batchSizes: { ...of.batchSizes } };
}

function json(value: unknown): Answer {
  return { status: 200, contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) };
}

function send(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': answer.body.length });
  res.end(answer.body);
}
