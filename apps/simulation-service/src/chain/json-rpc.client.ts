import { HttpJsonClient } from '@tradeinfra/service-kit';
import { ChainError, ChainErrorCode } from './chain.errors.js';

interface Pending {
  method: string;
  params: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** A JSON-RPC error the upstream answered with (the method ran and said no). */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * JSON-RPC over HTTP with automatic batching: every request made in the same tick goes out in
 * one batch (one round trip). Transport failures, timeouts and malformed answers become a
 * ChainError (Unreachable, Timeout, BadAnswer); an error object in the answer rejects that one
 * request with JsonRpcError.
 */
export class JsonRpcClient {
  private queue: Pending[] = [];
  private scheduled = false;
  private nextId = 1;
  /** Upstream round trips made so far (one per batch). */
  roundTrips = 0;

  private readonly http: HttpJsonClient;

  constructor(
    url: string,
    private readonly timeoutMs: number,
    private readonly maxBatch = 200,
    private readonly label = url,
  ) {
    this.http = new HttpJsonClient(url, timeoutMs);
  }

  request<T>(method: string, params: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ method, params, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.queue;
    this.queue = [];
    for (let i = 0; i < all.length; i += this.maxBatch) void this.send(all.slice(i, i + this.maxBatch));
  }

  private async send(batch: Pending[]): Promise<void> {
    this.roundTrips++;
    const ids = batch.map(() => this.nextId++);
    const payload = batch.map((p, i) => ({ jsonrpc: '2.0', id: ids[i], method: p.method, params: p.params }));
    let answers: unknown;
    try {
      answers = await this.http.post(payload);
    } catch (err) {
      const message = (err as Error).message;
      const error = message.startsWith('no answer within')
        ? new ChainError(ChainErrorCode.Timeout, `The chain RPC (${this.label}) did not answer within ${this.timeoutMs} ms`)
        : new ChainError(message === 'not JSON' ? ChainErrorCode.BadAnswer : ChainErrorCode.Unreachable, `The chain RPC (${this.label}) failed: ${message}`);
      for (const p of batch) p.reject(error);
      return;
    }
    // Some servers answer a batch with a single error object.
    const list = Array.isArray(answers) ? answers : [answers];
    const byId = new Map<unknown, { result?: unknown; error?: { code: number; message: string; data?: unknown } }>();
    for (const a of list) if (a && typeof a === 'object') byId.set((a as { id?: unknown }).id, a as never);
    batch.forEach((p, i) => {
      const answer = byId.get(ids[i]);
      if (!answer) {
        p.reject(new ChainError(ChainErrorCode.BadAnswer, `The chain RPC (${this.label}) gave no answer to ${p.method}`));
      } else if (answer.error) {
        p.reject(new JsonRpcError(answer.error.code, answer.error.message ?? 'error', answer.error.data));
      } else {
        p.resolve(answer.result);
      }
    });
  }
}
