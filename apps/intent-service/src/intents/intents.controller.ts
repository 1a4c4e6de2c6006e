import { Controller } from '@nestjs/common';
import {
  NATS_ROUTES,
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
import { Handles, RouteMessage } from '@tradeinfra/service-kit';
import { IntentsService } from './intents.service.js';

@Controller()
export class IntentsController {
  constructor(private readonly intents: IntentsService) {}

  @Handles(NATS_ROUTES.intentCreate)
  create(@RouteMessage(NATS_ROUTES.intentCreate) message: CreateIntentMessage): Promise<CreateIntentReply> {
    return this.intents.create(message);
  }

  @Handles(NATS_ROUTES.intentGet)
  get(@RouteMessage(NATS_ROUTES.intentGet) message: GetIntentMessage): Promise<IntentRecord> {
    return this.intents.get(message);
  }

  @Handles(NATS_ROUTES.intentSearch)
  search(@RouteMessage(NATS_ROUTES.intentSearch) message: SearchIntentsMessage): Promise<SearchIntentsReply> {
    return this.intents.search(message);
  }

  @Handles(NATS_ROUTES.intentCancel)
  cancel(@RouteMessage(NATS_ROUTES.intentCancel) message: CancelIntentMessage): Promise<IntentRecord> {
    return this.intents.cancel(message);
  }

  @Handles(NATS_ROUTES.intentCreateBatch)
  createBatch(@RouteMessage(NATS_ROUTES.intentCreateBatch) message: CreateIntentsMessage): Promise<CreateIntentsReply> {
    return this.intents.createBatch(message);
  }

  @Handles(NATS_ROUTES.intentCancelBatch)
  cancelBatch(@RouteMessage(NATS_ROUTES.intentCancelBatch) message: CancelIntentsMessage): Promise<CancelIntentsReply> {
    return this.intents.cancelBatch(message);
  }
}
