import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { INTENT_HEALTH, type HealthReply } from '@tradeinfra/contracts';
import { IntentsRepository } from '../intents/intents.repository.js';

@Controller()
export class HealthController {
  constructor(private readonly intents: IntentsRepository) {}

  /** Answers only when this replica can reach its database. */
  @MessagePattern(INTENT_HEALTH)
  async health(): Promise<HealthReply> {
    await this.intents.ping();
    return { ok: true };
  }
}
