import { HttpJsonClient } from './http-json.js';

export interface RpcCall {
  method: string;
  params: unknown[];
}
export interface RpcReplyItem<T = unknown> {
  result?: T;
  error?: { code?: number; message: string };
}

/** The node did not answer (connection, timeout, HTTP error, not JSON): unlike an error it answered with. */
export class RpcUnavailable extends Error {}

/** The one JSON-RPC client of the services (launch watcher, executor, payout settlement): bounded in time, with batches. */
export class ChainRpc {
  private id = 0;

  private readonly http: HttpJsonClient;

  constructor(url: string, timeoutMs = 10_000) {
    this.http = new HttpJsonClient(url, timeoutMs);
  }

  async call<T>(method: string, params: unknown[]): Promise<T> {
    const body = (await this.post({ jsonrpc: '2.0', id: ++this.id, method, params }, method)) as RpcReplyItem<T>;
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  }

  /** One HTTP request for many calls; replies in the calls' order, each with its result or error. */
  async batch<T = unknown>(calls: RpcCall[]): Promise<RpcReplyItem<T>[]> {
    if (calls.length === 0) return [];
    const first = this.id + 1;
    const request = calls.map((c) => ({ jsonrpc: '2.0', id: ++this.id, method: c.method, params: c.params }));
    const replies = (await this.post(request, `batch of ${calls.length}`)) as (RpcReplyItem<T> & { id: number })[];
    if (!Array.isArray(replies)) throw new Error(`batch of ${calls.length}: the node did not answer with a batch`);
    const byId = new Map(replies.map((r) => [r.id, r]));
    return calls.map((c, i) => byId.get(first + i) ?? { error: { message: `${c.method}: no reply in the batch` } });
  }

  /** `batch`, throwing on the first error. */
  async all<T = unknown>(calls: RpcCall[]): Promise<T[]> {
    const replies = await this.batch<T>(calls);
    return replies.map((r, i) => {
      if (r.error) throw new Error(`${calls[i]!.method}: ${r.error.message}`);
      return r.result as T;
    });
  }

  private async post(payload: unknown, what: string): Promise<unknown> {
    try {
      return await this.http.post(payload);
    } catch (err) {
      throw new RpcUnavailable(`${what}: the node did not answer (${(err as Error).message})`);
    }
  }
}
