import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { NatsModule } from '../nats/nats.module.js';
import { HealthController } from './health.controller.js';

@Module({
  imports: [AuthModule, NatsModule, MetricsModule],
  controllers: [HealthController],
})
export class HealthModule {}
