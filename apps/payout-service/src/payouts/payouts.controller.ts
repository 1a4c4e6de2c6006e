import { Controller } from '@nestjs/common';
import { NATS_ROUTES, type HealthReply, type PayoutMessage, type RawJsonReply } from '@tradeinfra/contracts';
import { Handles, RouteMessage } from '@tradeinfra/service-kit';
import { LedgerRepository } from '../ledger/ledger.repository.js';
import { PayoutsService } from './payouts.service.js';
import { Settler } from './settler.js';

type WithId<T = unknown> = PayoutMessage<T> & { id: unknown };

@Controller()
export class PayoutsController {
  constructor(
    private readonly payouts: PayoutsService,
    private readonly ledger: LedgerRepository,
    private readonly settler: Settler,
  ) {}

  /** Answers only when this replica can reach its database; with each settlement chain's endpoints. */
  @Handles(NATS_ROUTES.payoutHealth)
  async health(): Promise<HealthReply> {
    const [, chains] = await Promise.all([this.ledger.ping(), this.settler.health()]);
    return chains.length > 0 ? { ok: true, chains } : { ok: true };
  }

  @Handles(NATS_ROUTES.payoutRequest)
  request(@RouteMessage(NATS_ROUTES.payoutRequest) m: WithId): Promise<RawJsonReply> {
    return this.payouts.request(m.viewer, m.id, m.body);
  }

  @Handles(NATS_ROUTES.payoutSourcePayouts)
  sourcePayouts(@RouteMessage(NATS_ROUTES.payoutSourcePayouts) m: WithId): Promise<RawJsonReply> {
    return this.payouts.bySource(m.viewer, m.id);
  }

  @Handles(NATS_ROUTES.payoutGet)
  get(@RouteMessage(NATS_ROUTES.payoutGet) m: WithId): Promise<RawJsonReply> {
    return this.payouts.get(m.viewer, m.id);
  }

  /** The treasury paying `chainId`'s payouts (the orderflow service's default beneficiary of bids). */
  @Handles(NATS_ROUTES.payoutTreasury)
  treasury(@RouteMessage(NATS_ROUTES.payoutTreasury) m: { chainId: unknown }): { chainId: number; address: string } {
    return this.payouts.treasury(m.chainId);
  }

  @Handles(NATS_ROUTES.payoutTransition)
  transition(@RouteMessage(NATS_ROUTES.payoutTransition) m: WithId): Promise<RawJsonReply> {
    return this.payouts.transition(m.viewer, m.id, m.body);
  }
}
