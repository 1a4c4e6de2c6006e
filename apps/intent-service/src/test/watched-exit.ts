import type { WatchedExit } from '../exits/exits.repository.js';

/** A waiting `onRug` exit of tenant `t` for unit tests: no price trigger, no webhook, `over` on top. */
export function watchedExit(id: string, over: Partial<WatchedExit> & Pick<WatchedExit, 'wallet' | 'token'>): WatchedExit {
  return {
    id,
    tenantId: 't',
    amount: null,
    takeProfit: null,
    stopLoss: null,
    trailingStop: null,
    onRug: true,
    entryPrice: null,
    followsTxHash: null,
    highestPrice: null,
    minOut: null,
    maxSlippageBps: null,
    bribe: 0n,
    gasTip: 0n,
    expiry: 2_000_000_000n,
    webhookUrl: null,
    webhookProtocol: 'tradeinfra',
    statusReason: null,
    ...over,
  };
}
