import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TokensModule } from '../tokens/tokens.module.js';
import { ExpirySweeper } from './expiry.sweeper.js';
import { IntentsController } from './intents.controller.js';
import { IntentsRepository } from './intents.repository.js';
import { IntentsService } from './intents.service.js';

@Module({
  imports: [OutboxModule, TokensModule],
  controllers: [IntentsController],
  providers: [IntentsRepository, IntentsService, ExpirySweeper],
  exports: [IntentsRepository],
})
export class IntentsModule {}
