import { Module } from '@nestjs/common';
import { IntentsModule } from '../intents/intents.module.js';
import { HealthController } from './health.controller.js';

@Module({
  imports: [IntentsModule],
  controllers: [HealthController],
})
export class HealthModule {}
