import http from 'node:http';
import https from 'node:https';

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

/** A small JSON-RPC client for the launch watcher and the executor: bounded in time. */
export class ChainRpc {
  private id = 0;

  private readonly target: URL;
  private readonly agent: http.Agent;

  constructor(
    url: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.target = new URL(url);
    this.agent = new (this.target.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 16 });
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

  /**
   * One POST on a kept-alive connection (node:http rather than fetch: half the per-request
   * overhead, which counts when a launch's buys go to the node one after the other).
   */
  private post(payload: unknown, what: string): Promise<unknown> {
    const body = JSON.stringify(payload);
    return this.attempt(body, what, true);
  }

  private attempt(body: string, what: string, mayRetry: boolean): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const fail = (detail: string) => reject(new RpcUnavailable(`${what}: the node did not answer (${detail})`));
      const req = (this.target.protocol === 'https:' ? https : http).request(
        this.target,
        {
          method: 'POST',
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) => fail(err.message));
          res.on('end', () => {
            if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode >= 300) return fail(`HTTP ${res.statusCode}`);
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch {
              fail('not JSON');
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err) => {
        const code = (err as NodeJS.ErrnoException).code;
        // A kept-alive connection the node closed while idle: the request never reached it.
        if (mayRetry && req.reusedSocket && code === 'ECONNRESET') resolve(this.attempt(body, what, false));
        else fail(code ?? err.message);
      });
      req.end(body);
    });
  }
}
