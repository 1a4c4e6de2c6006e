import type { Logger } from '@nestjs/common';
import type { ChainRpc } from '@tradeinfra/service-kit';
import { EthSubscription } from '../eth-subscription.js';

export interface PendingTransactionsOptions {
  /** The chain's WebSockets (`WS_URL_<id>`): hashes are pushed as each node sees them. */
  wsUrls?: readonly string[];
  /** Without a WebSocket: polls a pending-transaction filter on each of its endpoints every `pollMs`. */
  rpc: Pick<ChainRpc, 'call'> & Partial<Pick<ChainRpc, 'endpoints'>>;
  pollMs: number;
  onHashes: (hashes: string[]) => void;
  logger: Pick<Logger, 'log' | 'warn'>;
  /** Called when a WebSocket subscription is confirmed (at start and after each reconnect). */
  onSubscribed?: () => void;
  /** How many hashes are remembered so that none is announced twice. Default 50 000. */
  rememberHashes?: number;
}

/** One endpoint's pending-transaction filter (a filter lives on the node that made it). */
interface Poll {
  rpc: Pick<ChainRpc, 'call'>;
  filter: string | null;
  warned: boolean;
}

/**
 * The hashes of the transactions the chain's nodes see pending, each announced once however many
 * nodes announce it: pushed by `eth_subscribe newPendingTransactions` on every WebSocket the
 * chain has, else polled from an `eth_newPendingTransactionFilter` on every endpoint (re-created
 * when the node forgets it).
 */
export class PendingTransactions {
  private subscriptions: EthSubscription[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly polls: Poll[];
  private stopped = true;
  /** Hashes announced lately, oldest first. */
  private readonly announced = new Set<string>();
  private readonly remember: number;

  constructor(private readonly options: PendingTransactionsOptions) {
    const endpoints = options.rpc.endpoints?.() ?? [options.rpc];
    this.polls = endpoints.map((rpc) => ({ rpc, filter: null, warned: false }));
    this.remember = options.rememberHashes ?? 50_000;
  }

  start(): void {
    this.stopped = false;
    const { wsUrls = [], logger, onSubscribed } = this.options;
    if (wsUrls.length > 0) {
      const onHash = (hash: unknown) => typeof hash === 'string' && this.announce([hash]);
      this.subscriptions = wsUrls.map((url) => new EthSubscription(url, ['newPendingTransactions'], onHash, logger, onSubscribed));
      for (const subscription of this.subscriptions) subscription.start();
    } else this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    for (const subscription of this.subscriptions) subscription.stop();
    if (this.timer) clearTimeout(this.timer);
  }

  /** Announces `hash` again when a node announces it again (a launch dropped, whose very transaction may come back). */
  forget(hash: string): void {
    this.announced.delete(hash.toLowerCase());
  }

  /** One poll of every endpoint's filter (exposed for tests and for a caller that wants a poll now). */
  async poll(): Promise<void> {
    await Promise.all(this.polls.map((p) => this.pollOne(p)));
  }

  private async pollOne(p: Poll): Promise<void> {
    const { logger } = this.options;
    const where = this.polls.length > 1 ? ` (endpoint ${this.polls.indexOf(p) + 1} of ${this.polls.length})` : '';
    try {
      p.filter ??= await p.rpc.call<string>('eth_newPendingTransactionFilter', []);
      const hashes = await p.rpc.call<string[]>('eth_getFilterChanges', [p.filter]);
      if (p.warned) logger.log(`pending-transaction polling restored${where}`);
      p.warned = false;
      if (hashes.length > 0) this.announce(hashes);
    } catch (err) {
      // A filter the node dropped (restart, expiry) is made again on the next poll.
      p.filter = null;
      if (!p.warned) logger.warn(`pending-transaction polling failed${where}: ${(err as Error).message}`);
      p.warned = true;
    }
  }

  /** Passes on the hashes not announced before (by this node or another). */
  private announce(hashes: string[]): void {
    const fresh = hashes.filter((h) => {
      const key = h.toLowerCase();
      if (this.announced.has(key)) return false;
      this.announced.add(key);
      return true;
    });
    while (this.announced.size > this.remember) this.announced.delete(this.announced.values().next().value!);
    if (fresh.length > 0) this.options.onHashes(fresh);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => this.schedule(this.options.pollMs));
    }, delayMs);
    this.timer.unref?.();
  }
}
