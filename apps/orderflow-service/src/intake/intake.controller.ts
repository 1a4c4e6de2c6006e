import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ORDERFLOW_HEALTH, ORDERFLOW_RPC, type HealthReply, type OrderflowReply, type OrderflowRpcMessage } from '@tradeinfra/contracts';
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

  @MessagePattern(ORDERFLOW_RPC)
  rpc(@Payload() message: OrderflowRpcMessage): Promise<OrderflowReply> {
    return this.intake.rpc(message);
  }

  /** Answers only when this replica can reach its database; with each chain's endpoints. */
  @MessagePattern(ORDERFLOW_HEALTH)
  async health(): Promise<HealthReply> {
    const [, chains] = await Promise.all([this.txs.ping(), this.chains.health()]);
    return chains.length > 0 ? { ok: true, chains } : { ok: true };
  }
}
