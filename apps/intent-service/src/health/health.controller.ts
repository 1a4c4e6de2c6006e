import { Controller } from '@nestjs/common';
import { NATS_ROUTES, type HealthReply } from '@tradeinfra/contracts';
import { Handles } from '@tradeinfra/service-kit';
import { ChainNodes } from '../common/chain-nodes.js';
import { IntentsRepository } from '../intents/intents.repository.js';

@Controller()
export class HealthController {
  constructor(
    private readonly intents: IntentsRepository,
    private readonly nodes: ChainNodes,
  ) {}

  /** Answers only when this replica can reach its database; with each watched chain's endpoints. */
  @Handles(NATS_ROUTES.intentHealth)
  async health(): Promise<HealthReply> {
    const [, chains] = await Promise.all([this.intents.ping(), this.nodes.health()]);
    return chains.length > 0 ? { ok: true, chains } : { ok: true };
  }
}
