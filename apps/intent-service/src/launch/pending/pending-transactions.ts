import type { Logger } from '@nestjs/common';
import type { ChainRpc } from '@tradeinfra/service-kit';
import { EthSubscription } from '../eth-subscription.js';

export interface PendingTransactionsOptions {
  /** The node's WebSocket (`WS_URL_<id>`): hashes are pushed as the node sees them. */
  wsUrl?: string;
  /** Without a WebSocket: polls a pending-transaction filter every `pollMs`. */
  rpc: Pick<ChainRpc, 'call'>;
  pollMs: number;
  onHashes: (hashes: string[]) => void;
  logger: Pick<Logger, 'log' | 'warn'>;
  /** Called when the WebSocket subscription is confirmed (at start and after each reconnect). */
  onSubscribed?: () => void;
}

/**
 * The hashes of the transactions a node sees pending, each announced once: pushed by
 * `eth_subscribe newPendingTransactions` where the node has a WebSocket, else polled from an
 * `eth_newPendingTransactionFilter` (re-created when the node forgets it).
 */
export class PendingTransactions {
  private subscription: EthSubscription | null = null;
  private timer: NodeJS.Timeout | null = null;
  private filter: string | null = null;
  private stopped = true;
  private warned = false;

  constructor(private readonly options: PendingTransactionsOptions) {}

  start(): void {
    this.stopped = false;
    const { wsUrl, onHashes, logger, onSubscribed } = this.options;
    if (wsUrl) {
      const onHash = (hash: unknown) => typeof hash === 'string' && onHashes([hash]);
      this.subscription = new EthSubscription(wsUrl, ['newPendingTransactions'], onHash, logger, onSubscribed);
      this.subscription.start();
    } else this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.subscription?.stop();
    if (this.timer) clearTimeout(this.timer);
  }

  /** One poll of the filter (exposed for tests and for a caller that wants a poll now). */
  async poll(): Promise<void> {
    const { rpc, onHashes, logger } = this.options;
    try {
      this.filter ??= await rpc.call<string>('eth_newPendingTransactionFilter', []);
      const hashes = await rpc.call<string[]>('eth_getFilterChanges', [this.filter]);
      if (this.warned) logger.log('pending-transaction polling restored');
      this.warned = false;
      if (hashes.length > 0) onHashes(hashes);
    } catch (err) {
      // A filter the node dropped (restart, expiry) is made again on the next poll.
      this.filter = null;
      if (!this.warned) logger.warn(`pending-transaction polling failed: ${(err as Error).message}`);
      this.warned = true;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => this.schedule(this.options.pollMs));
    }, delayMs);
    this.timer.unref?.();
  }
}
