import type { Logger } from '@nestjs/common';
import { parsePlainJson } from '@tradeinfra/contracts';
import WebSocket from 'ws';

/**
 * One `eth_subscribe` over WebSocket (`newHeads`, `newPendingTransactions`, …): calls `onResult`
 * with each notification's result. Reconnects with backoff (1 s doubling to 30 s); its users keep
 * polling as the safety net while it is down.
 */
export class EthSubscription {
  private socket: WebSocket | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly url: string,
    private readonly params: readonly unknown[],
    private readonly onResult: (result: unknown) => void,
    private readonly logger: Pick<Logger, 'log' | 'warn'>,
    /** Called each time the node has confirmed the subscription (at start and after every reconnect). */
    private readonly onSubscribed: () => void = () => undefined,
  ) {}

  private get name(): string {
    return String(this.params[0]);
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.removeAllListeners();
    this.socket?.on('error', () => undefined);
    this.socket?.terminate();
    this.socket = null;
  }

  private connect(): void {
    const socket = new WebSocket(this.url, { handshakeTimeout: 10_000 });
    this.socket = socket;
    socket.on('open', () => {
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: this.params }));
    });
    socket.on('message', (data) => {
      let message: { id?: number; result?: string; error?: { message: string }; method?: string; params?: { result?: unknown } };
      try {
        message = parsePlainJson(String(data)) as typeof message;
      } catch {
        return;
      }
      if (message.id === 1) {
        if (message.error) {
          this.logger.warn(`${this.name} subscription refused by ${redact(this.url)}: ${message.error.message}`);
          socket.close();
        } else {
          if (this.failures > 0) this.logger.log(`${this.name} subscription to ${redact(this.url)} restored`);
          this.failures = 0;
          this.onSubscribed();
        }
        return;
      }
      if (message.method === 'eth_subscription' && message.params?.result !== undefined) this.onResult(message.params.result);
    });
    socket.on('error', () => undefined); // 'close' follows
    socket.on('close', () => {
      if (this.stopped || this.socket !== socket) return;
      this.failures++;
      const delay = Math.min(1_000 * 2 ** (this.failures - 1), 30_000);
      if (this.failures === 1) this.logger.warn(`${this.name} subscription to ${redact(this.url)} lost; polling meanwhile, reconnecting`);
      this.timer = setTimeout(() => this.connect(), delay);
      this.timer.unref?.();
    });
  }
}

/** A node URL without credentials or path (API keys often live there). */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the node';
  }
}
