import { Inject, Injectable } from '@nestjs/common';
import { NATS_ROUTES, type PayoutViewer } from '@tradeinfra/contracts';
import { CLOCK, type Clock } from '@tradeinfra/service-kit';
import { ServiceClient } from '../nats/service-client.js';

const TTL_MS = 5_000;

/**
 * Whether a key may send order flow for a source (its tenant owns the registered source, or it
 * is an operator's), asked of the payout service and remembered 5 s per (key, source): a wallet's
 * every read goes through the same check.
 */
@Injectable()
export class SourceOwners {
  private readonly allowed = new Map<string, number>();

  constructor(
    private readonly services: ServiceClient,
    @Inject(CLOCK) private readonly now: Clock,
  ) {}

  /** Resolves when allowed; rejects with the payout service's NotFound otherwise. */
  async check(viewer: PayoutViewer, source: string, requestId: string): Promise<void> {
    const key = `${viewer.keyId ?? viewer.tenantId}\u0000${source}`;
    const until = this.allowed.get(key);
    if (until !== undefined && until > this.now()) return;
    await this.services.forward(NATS_ROUTES.payoutSourceGet, { viewer, id: source }, requestId);
    if (this.allowed.size > 10_000) this.allowed.clear();
    this.allowed.set(key, this.now() + TTL_MS);
  }
}
