import { Module } from '@nestjs/common';
import { Metrics } from './metrics.js';

@Module({
  providers: [Metrics],
  exports: [Metrics],
})
export class MetricsModule {}
