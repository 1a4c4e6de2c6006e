import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  PAYOUT_GET,
  PAYOUT_HEALTH,
  PAYOUT_REQUEST,
  PAYOUT_SOURCE_PAYOUTS,
  PAYOUT_TRANSITION,
  PAYOUT_TREASURY,
  type HealthReply,
  type PayoutMessage,
  type RawJsonReply,
} from '@tradeinfra/contracts';
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
  @MessagePattern(PAYOUT_HEALTH)
  async health(): Promise<HealthReply> {
    const [, chains] = await Promise.all([this.ledger.ping(), this.settler.health()]);
    return chains.length > 0 ? { ok: true, chains } : { ok: true };
  }

  @MessagePattern(PAYOUT_REQUEST)
  request(@Payload() m: WithId): Promise<RawJsonReply> {
    return this.payouts.request(m.viewer, m.id, m.body);
  }

  @MessagePattern(PAYOUT_SOURCE_PAYOUTS)
  sourcePayouts(@Payload() m: WithId): Promise<RawJsonReply> {
    return this.payouts.bySource(m.viewer, m.id);
  }

  @MessagePattern(PAYOUT_GET)
  get(@Payload() m: WithId): Promise<RawJsonReply> {
    return this.payouts.get(m.viewer, m.id);
  }

  /** The treasury paying `chainId`'s payouts (the orderflow service's default beneficiary of bids). */
  @MessagePattern(PAYOUT_TREASURY)
  treasury(@Payload() m: { chainId: unknown }): { chainId: number; address: string } {
    return this.payouts.treasury(m.chainId);
  }

  @MessagePattern(PAYOUT_TRANSITION)
  transition(@Payload() m: WithId): Promise<RawJsonReply> {
    return this.payouts.transition(m.viewer, m.id, m.body);
  }
}
