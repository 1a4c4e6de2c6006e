import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ORDERFLOW_MEV, type OrderflowMevMessage, type OrderflowReply } from '@tradeinfra/contracts';
import { BundlesService } from './bundles.service.js';

@Controller()
export class BundlesController {
  constructor(private readonly bundles: BundlesService) {}

  @MessagePattern(ORDERFLOW_MEV)
  mev(@Payload() message: OrderflowMevMessage): Promise<OrderflowReply> {
    return this.bundles.mev(message);
  }
}
