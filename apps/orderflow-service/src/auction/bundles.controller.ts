import { Controller } from '@nestjs/common';
import { NATS_ROUTES, type OrderflowMevMessage, type OrderflowReply } from '@tradeinfra/contracts';
import { Handles, RouteMessage } from '@tradeinfra/service-kit';
import { BundlesService } from './bundles.service.js';

@Controller()
export class BundlesController {
  constructor(private readonly bundles: BundlesService) {}

  @Handles(NATS_ROUTES.orderflowMev)
  mev(@RouteMessage(NATS_ROUTES.orderflowMev) message: OrderflowMevMessage): Promise<OrderflowReply> {
    return this.bundles.mev(message);
  }
}
