import { parsePlainJson } from '@tradeinfra/contracts';
import WebSocket from 'ws';
import { RpcError, RpcUnavailable } from '@tradeinfra/service-kit';

const OPEN_TIMEOUT_MS = 5_000;
const REOPEN_MS = 1_000;

interface Waiting {
  resolve: (hash: string) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * `eth_sendRawTransaction` over one kept-open WebSocket (a chain's `WS_URL_<id>`): half the cost
 * per call of HTTP on a node that must be sent a round's buys one by one
 * (docs/design/execution-rounds.md#sending). Opened at start and again a second after it drops; a
 * send while it is not open rejects RpcUnavailable at once (the caller goes on over HTTP), as does
 * one left unanswered; a node's refusal rejects RpcError.
 */
export class WsSender {
  private socket: WebSocket | null = null;
  private opening: WebSocket | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 2_000,
  ) {
    this.open();
  }

  /** Whether sends go over it now. */
  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /** The transaction's hash as the node answered it. */
  async send(raw: string): Promise<string> {
    const socket = this.socket;
    if (socket?.readyState !== WebSocket.OPEN) throw unavailable('unreachable', 'not connected');
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(unavailable('timeout', `no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }), (err) => {
        if (err) this.settle(id, unavailable('unreachable', err.message));
      });
    });
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.opening?.terminate();
    this.drop(unavailable('unreachable', 'closed'));
  }

  private open(): void {
    if (this.closed || this.opening || this.socket) return;
    const socket = new WebSocket(this.url, { handshakeTimeout: OPEN_TIMEOUT_MS });
    this.opening = socket;
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (this.opening === socket) this.opening = null;
      if (this.socket === socket) this.drop(unavailable('unreachable', 'the connection closed'));
      this.reopenLater();
    });
    socket.once('open', () => {
      this.opening = null;
      this.socket = socket;
      socket.on('message', (data) => this.answer(String(data)));
    });
  }

  private reopenLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.open();
    }, REOPEN_MS);
    this.retry.unref();
  }

  private answer(text: string): void {
    let message: { id?: unknown; result?: unknown; error?: { code?: number; message?: string; data?: unknown } };
    try {
      message = parsePlainJson(text) as typeof message;
    } catch {
      return;
    }
    if (typeof message.id !== 'number') return;
    if (message.error) {
      const e = message.error;
      this.settle(message.id, new RpcError('eth_sendRawTransaction', typeof e.code === 'number' ? e.code : -32603, String(e.message ?? 'refused'), e.data));
    } else {
      this.settle(message.id, String(message.result));
    }
  }

  private settle(id: number, outcome: string | Error): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    if (outcome instanceof Error) w.reject(outcome);
    else w.resolve(outcome);
  }

  private drop(err: RpcUnavailable): void {
    const socket = this.socket;
    this.socket = null;
    socket?.terminate();
    for (const id of [...this.waiting.keys()]) this.settle(id, err);
  }
}

const unavailable = (reason: 'timeout' | 'unreachable', detail: string) =>
  new RpcUnavailable(reason, `eth_sendRawTransaction over WebSocket: ${detail}`, detail);
