import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { NatsModule } from '../nats/nats.module.js';
import { SimulationController } from './simulation.controller.js';

@Module({
  imports: [AuthModule, NatsModule],
  controllers: [SimulationController],
})
export class SimulationModule {}
