import { Module } from '@nestjs/common';
import { ChainModule } from '../chain/chain.module.js';
import { SimulationController } from './simulation.controller.js';
import { SimulationService } from './simulation.service.js';

@Module({
  imports: [ChainModule],
  controllers: [SimulationController],
  providers: [SimulationService],
})
export class SimulationModule {}
