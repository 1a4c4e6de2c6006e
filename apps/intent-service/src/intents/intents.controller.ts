import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  INTENT_CANCEL,
  INTENT_CANCEL_BATCH,
  INTENT_CREATE,
  INTENT_CREATE_BATCH,
  INTENT_GET,
  INTENT_SEARCH,
  type CancelIntentMessage,
  type CancelIntentsMessage,
  type CancelIntentsReply,
  type CreateIntentMessage,
  type CreateIntentReply,
  type CreateIntentsMessage,
  type CreateIntentsReply,
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

  @MessagePattern(INTENT_CREATE_BATCH)
  createBatch(@Payload() message: CreateIntentsMessage): Promise<CreateIntentsReply> {
    return this.intents.createBatch(message);
  }

  @MessagePattern(INTENT_CANCEL_BATCH)
  cancelBatch(@Payload() message: CancelIntentsMessage): Promise<CancelIntentsReply> {
    return this.intents.cancelBatch(message);
  }
}
