import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  INTENT_CANCEL,
  INTENT_CREATE,
  INTENT_GET,
  INTENT_SEARCH,
  type CancelIntentMessage,
  type CreateIntentMessage,
  type CreateIntentReply,
  type GetIntentMessage,
  type IntentRecord,
  type SearchIntentsMessage,
  type SearchIntentsReply,
} from '@tradeinfra/contracts';
import { IntentsService } from './intents.service.js';

@Controller()
export class IntentsController {
  constructor(private readonly intents: IntentsService) {}

  @MessagePattern(INTENT_CREATE)
  create(@Payload() message: CreateIntentMessage): Promise<CreateIntentReply> {
    return this.intents.create(message);
  }

  @MessagePattern(INTENT_GET)
  get(@Payload() message: GetIntentMessage): Promise<IntentRecord> {
    return this.intents.get(message);
  }

  @MessagePattern(INTENT_SEARCH)
  search(@Payload() message: SearchIntentsMessage): Promise<SearchIntentsReply> {
    return this.intents.search(message);
  }

  @MessagePattern(INTENT_CANCEL)
  cancel(@Payload() message: CancelIntentMessage): Promise<IntentRecord> {
    return this.intents.cancel(message);
  }
}
