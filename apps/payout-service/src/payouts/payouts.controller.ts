import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { PAYOUT_GET, PAYOUT_REQUEST, PAYOUT_SOURCE_PAYOUTS, PAYOUT_TRANSITION, type PayoutMessage, type RawJsonReply } from '@tradeinfra/contracts';
import { PayoutsService } from './payouts.service.js';

type WithId<T = unknown> = PayoutMessage<T> & { id: unknown };

@Controller()
export class PayoutsController {
  constructor(private readonly payouts: PayoutsService) {}

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

  @MessagePattern(PAYOUT_TRANSITION)
  transition(@Payload() m: WithId): Promise<RawJsonReply> {
    return this.payouts.transition(m.viewer, m.id, m.body);
  }
}
