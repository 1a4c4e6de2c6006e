import { HttpJsonClient, HttpJsonUnavailable } from './http-json.js';

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** A JSON-RPC error object as the node answered it (`message` is the node's, without the method). */
export interface RpcErrorObject {
  /** The node's error code (0 when it gave none). */
  code: number;
  message: string;
  data?: unknown;
}

/**
 * One call's reply in a batch: its result, or the error the node answered it with, or (for a
 * call the node's answer left out) an RpcUnavailable `bad_answer` whose message ends in
 * "no reply in the batch".
 */
export interface RpcReplyItem<T = unknown> {
  result?: T;
  error?: RpcErrorObject | RpcUnavailable;
}

/** Why the node gave no usable answer: none in time, none at all (connection, HTTP status), or not a JSON-RPC answer. */
export type RpcUnavailableReason = 'timeout' | 'unreachable' | 'bad_answer';

/** The node answered a call with an error: the method ran (or was refused) and said no. */
export class RpcError extends Error {
  override readonly name = 'RpcError';

  constructor(
    readonly method: string,
    readonly code: number,
    /** The node's message (the error's `message` is `<method>: <detail>`). */
    readonly detail: string,
    readonly data?: unknown,
  ) {
    super(`${method}: ${detail}`);
  }
}

/**
 * The node did not answer (connection, timeout, HTTP error), or not with a JSON-RPC answer to
 * what was asked (not JSON, not a batch, a call left out): unlike an error it answered with.
 */
export class RpcUnavailable extends Error {
  override readonly name = 'RpcUnavailable';

  constructor(
    readonly reason: RpcUnavailableReason,
    message: string,
    /** What went wrong, without the call it happened to (`ECONNREFUSED`, `HTTP 502`, `not JSON`…). */
    readonly detail: string,
  ) {
    super(message);
  }
}

export interface RpcEndpointOptions {
  /** Bound on each HTTP request without an answer, in ms. Default 10 s. */
  timeoutMs?: number;
  /** `call`s made in the same tick go out as one batch (one round trip). Default false: one request per `call`. */
  autoBatch?: boolean;
  /** Most calls in one HTTP request; a longer batch goes out as several, concurrently. Default: no limit. */
  maxBatch?: number;
  /** Kept-alive connections to the node. Default 16. */
  maxSockets?: number;
}

interface Queued extends RpcCall {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * One node's JSON-RPC over HttpJsonClient (kept-alive node:http, a request the node's idle close
 * lost sent once more), bounded in time, with explicit batches and, optionally, every `call` of
 * a tick batched. A node's error is an RpcError; no usable answer is an RpcUnavailable with its
 * reason. ChainRpc (chain-rpc.ts) puts one or several of these behind one client.
 */
export class RpcEndpoint {
  private nextId = 0;
  private trips = 0;
  private queue: Queued[] = [];
  private scheduled = false;
  private readonly http: HttpJsonClient;
  private readonly autoBatch: boolean;
  private readonly maxBatch: number;
  /** The newest head this node gave (`eth_blockNumber`, or the `latest` block), and when (performance.now()). */
  head: bigint | null = null;
  headAt = 0;

  constructor(
    readonly url: string,
    options: RpcEndpointOptions = {},
  ) {
    this.http = new HttpJsonClient(url, options.timeoutMs ?? 10_000, options.maxSockets);
    this.autoBatch = options.autoBatch ?? false;
    this.maxBatch = Math.max(1, options.maxBatch ?? Infinity);
  }

  /** HTTP requests made to the node so far (a batch is one). */
  get roundTrips(): number {
    return this.trips;
  }

  /** One call; its result, or an RpcError (the node said no) or RpcUnavailable. */
  call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    if (this.autoBatch) return new Promise<T>((resolve, reject) => this.enqueue({ method, params, resolve: resolve as (v: unknown) => void, reject }));
    return this.single<T>(method, params);
  }

  /**
   * Many calls in one HTTP request (several past maxBatch); replies in the calls' order (matched
   * by id: a node may answer in any order), each with its result or error. Rejects only with an
   * RpcUnavailable, when the node gave no usable answer to the batch as a whole.
   */
  async batch<T = unknown>(calls: RpcCall[]): Promise<RpcReplyItem<T>[]> {
    if (calls.length === 0) return [];
    if (calls.length <= this.maxBatch) return (await this.exchange(calls)) as RpcReplyItem<T>[];
    const chunks: Promise<RpcReplyItem[]>[] = [];
    for (let i = 0; i < calls.length; i += this.maxBatch) chunks.push(this.exchange(calls.slice(i, i + this.maxBatch)));
    return (await Promise.all(chunks)).flat() as RpcReplyItem<T>[];
  }

  /** `batch`, throwing the first call's error (RpcError or RpcUnavailable). */
  async all<T = unknown>(calls: RpcCall[]): Promise<T[]> {
    const replies = await this.batch<T>(calls);
    return replies.map((r, i) => settle(calls[i]!.method, r) as T);
  }

  /** The node's head, asked outside the round-trip count (the pool's background check). */
  async blockNumber(): Promise<bigint> {
    let answer: unknown;
    try {
      answer = await this.http.post({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] });
    } catch (err) {
      if (!(err instanceof HttpJsonUnavailable)) throw err;
      throw new RpcUnavailable(err.reason, `eth_blockNumber: the node did not answer (${err.message})`, err.message);
    }
    if (!isReply(answer)) throw new RpcUnavailable('bad_answer', "eth_blockNumber: the node's answer is not a JSON-RPC reply", 'not a JSON-RPC reply');
    const head = settle('eth_blockNumber', replyItem(answer));
    if (typeof head !== 'string' || !/^0x[0-9a-f]+$/i.test(head))
      throw new RpcUnavailable('bad_answer', 'eth_blockNumber: not a block number', 'not a block number');
    this.sawHead(BigInt(head));
    return BigInt(head);
  }

  /** Notes a head the node gave. */
  sawHead(head: bigint): void {
    this.head = head;
    this.headAt = performance.now();
  }

  private async single<T>(method: string, params: unknown[]): Promise<T> {
    const answer = await this.post({ jsonrpc: '2.0', id: ++this.nextId, method, params }, method);
    if (!isReply(answer)) throw new RpcUnavailable('bad_answer', `${method}: the node's answer is not a JSON-RPC reply`, 'not a JSON-RPC reply');
    const item = replyItem(answer);
    this.observe(method, params, item);
    return settle(method, item) as T;
  }

  /** Heads seen in passing (the head asked for, the `latest` block): what the pool's lag is measured on between checks. */
  private observe(method: string, params: unknown[], item: RpcReplyItem): void {
    if (item.error) return;
    if (method === 'eth_blockNumber' && typeof item.result === 'string') this.sawHead(BigInt(item.result));
    else if (method === 'eth_getBlockByNumber' && params[0] === 'latest') {
      const number = (item.result as { number?: unknown } | null)?.number;
      if (typeof number === 'string') this.sawHead(BigInt(number));
    }
  }

  private enqueue(call: Queued): void {
    this.queue.push(call);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const queued = this.queue;
    this.queue = [];
    for (let i = 0; i < queued.length; i += this.maxBatch) {
      const chunk = queued.slice(i, i + this.maxBatch);
      void this.exchange(chunk).then(
        (replies) =>
          chunk.forEach((c, j) => {
            try {
              c.resolve(settle(c.method, replies[j]!));
            } catch (err) {
              c.reject(err as Error);
            }
          }),
        (err: Error) => chunk.forEach((c) => c.reject(err)),
      );
    }
  }

  /** One HTTP request for these calls (always a JSON-RPC batch). */
  private async exchange(calls: RpcCall[]): Promise<RpcReplyItem[]> {
    const first = this.nextId + 1;
    const request = calls.map((c) => ({ jsonrpc: '2.0', id: ++this.nextId, method: c.method, params: c.params }));
    const what = `batch of ${calls.length}`;
    const answer = await this.post(request, what);
    if (!Array.isArray(answer)) {
      // Some nodes refuse a whole batch with one error object.
      const detail = isReply(answer) && answer.error !== undefined ? `an error instead of a batch: ${errorObject(answer.error).message}` : 'not a batch';
      throw new RpcUnavailable('bad_answer', `${what}: the node did not answer with a batch (${detail})`, detail);
    }
    const byId = new Map<unknown, Reply>();
    for (const reply of answer) if (isReply(reply)) byId.set(reply.id, reply);
    return calls.map((c, i) => {
      const reply = byId.get(first + i);
      if (!reply) return { error: new RpcUnavailable('bad_answer', `${c.method}: no reply in the batch`, `no reply to ${c.method} in the batch`) };
      const item = replyItem(reply);
      this.observe(c.method, c.params, item);
      return item;
    });
  }

  private async post(payload: unknown, what: string): Promise<unknown> {
    this.trips++;
    try {
      return await this.http.post(payload);
    } catch (err) {
      if (!(err instanceof HttpJsonUnavailable)) throw err;
      throw new RpcUnavailable(err.reason, `${what}: the node did not answer (${err.message})`, err.message);
    }
  }
}

interface Reply {
  id?: unknown;
  result?: unknown;
  error?: unknown;
}

function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function replyItem(reply: Reply): RpcReplyItem {
  return reply.error !== undefined && reply.error !== null ? { error: errorObject(reply.error) } : { result: reply.result };
}

function errorObject(error: unknown): RpcErrorObject {
  if (!isReply(error)) return { code: 0, message: String(error) };
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: typeof e.code === 'number' ? e.code : 0,
    message: typeof e.message === 'string' ? e.message : 'error',
    ...(e.data !== undefined ? { data: e.data } : {}),
  };
}

/** A reply's result, or its error thrown. */
export function settle(method: string, reply: RpcReplyItem): unknown {
  if (reply.error instanceof RpcUnavailable) throw reply.error;
  if (reply.error) throw new RpcError(method, reply.error.code, reply.error.message, reply.error.data);
  return reply.result;
}
