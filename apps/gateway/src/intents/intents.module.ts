import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { NatsModule } from '../nats/nats.module.js';
import { IntentEventsController } from './intent-events.controller.js';
import { IntentsController } from './intents.controller.js';

@Module({
  imports: [AuthModule, NatsModule],
  controllers: [IntentsController, IntentEventsController],
})
export class IntentsModule {}
