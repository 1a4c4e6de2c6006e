import { Controller } from '@nestjs/common';
import { NATS_ROUTES, type CreateExitMessage, type CreateIntentReply } from '@tradeinfra/contracts';
import { Handles, RouteMessage } from '@tradeinfra/service-kit';
import { ExitsService } from './exits.service.js';

@Controller()
export class ExitsController {
  constructor(private readonly exits: ExitsService) {}

  @Handles(NATS_ROUTES.exitCreate)
  create(@RouteMessage(NATS_ROUTES.exitCreate) message: CreateExitMessage): Promise<CreateIntentReply> {
    return this.exits.create(message);
  }
}
