import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { INTENT_HEALTH, type HealthReply } from '@tradeinfra/contracts';
import { ChainNodes } from '../common/chain-nodes.js';
import { IntentsRepository } from '../intents/intents.repository.js';

@Controller()
export class HealthController {
  constructor(
    private readonly intents: IntentsRepository,
    private readonly nodes: ChainNodes,
  ) {}

  /** Answers only when this replica can reach its database; with each watched chain's endpoints. */
  @MessagePattern(INTENT_HEALTH)
  async health(): Promise<HealthReply> {
    const [, chains] = await Promise.all([this.intents.ping(), this.nodes.health()]);
    return chains.length > 0 ? { ok: true, chains } : { ok: true };
  }
}
