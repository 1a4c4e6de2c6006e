import { Module, type DynamicModule } from '@nestjs/common';
import { ChainRegistry } from './chain/chain-registry.js';
import { ENV, type SimulationEnv } from './config/env.js';
import { SimulationController } from './simulation/simulation.controller.js';
import { SimulationService } from './simulation/simulation.service.js';

@Module({})
export class AppModule {
  static forRoot(env: SimulationEnv): DynamicModule {
    return {
      module: AppModule,
      global: true,
      controllers: [SimulationController],
      providers: [{ provide: ENV, useValue: env }, ChainRegistry, SimulationService],
      exports: [ENV],
    };
  }
}
