import { Controller } from '@nestjs/common';
import { NATS_ROUTES, type HealthReply, type OrderflowReply, type OrderflowRpcMessage } from '@tradeinfra/contracts';
import { Handles, RouteMessage } from '@tradeinfra/service-kit';
import { Chains } from '../common/chains.js';
import { IntakeService } from './intake.service.js';
import { PrivateTxsRepository } from './private-txs.repository.js';

@Controller()
export class IntakeController {
  constructor(
    private readonly intake: IntakeService,
    private readonly txs: PrivateTxsRepository,
    private readonly chains: Chains,
  ) {}

  @Handles(NATS_ROUTES.orderflowRpc)
  rpc(@RouteMessage(NATS_ROUTES.orderflowRpc) message: OrderflowRpcMessage): Promise<OrderflowReply> {
    return this.intake.rpc(message);
  }

  /** Answers only when this replica can reach its database; with each chain's endpoints. */
  @Handles(NATS_ROUTES.orderflowHealth)
  async health(): Promise<HealthReply> {
    const [, chains] = await Promise.all([this.txs.ping(), this.chains.health()]);
    return chains.length > 0 ? { ok: true, chains } : { ok: true };
  }
}
