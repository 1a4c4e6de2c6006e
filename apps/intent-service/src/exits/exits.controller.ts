import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EXIT_CREATE, type CreateExitMessage, type CreateIntentReply } from '@tradeinfra/contracts';
import { ExitsService } from './exits.service.js';

@Controller()
export class ExitsController {
  constructor(private readonly exits: ExitsService) {}

  @MessagePattern(EXIT_CREATE)
  create(@Payload() message: CreateExitMessage): Promise<CreateIntentReply> {
    return this.exits.create(message);
  }
}
