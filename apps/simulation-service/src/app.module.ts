import { Module, type DynamicModule } from '@nestjs/common';
import { ChainModule } from './chain/chain.module.js';
import { CommonModule } from './common/common.module.js';
import type { SimulationEnv } from './config/env.js';
import { SimulationModule } from './simulation/simulation.module.js';

/** The simulation service: one module per feature folder, the env in CommonModule. */
@Module({})
export class AppModule {
  static forRoot(env: SimulationEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [CommonModule.forRoot(env), ChainModule, SimulationModule],
    };
  }
}
