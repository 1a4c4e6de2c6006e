import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ENV, type SimulationEnv } from '../config/env.js';

/** What every feature uses: the env. */
@Global()
@Module({})
export class CommonModule {
  static forRoot(env: SimulationEnv): DynamicModule {
    return {
      module: CommonModule,
      providers: [{ provide: ENV, useValue: env }],
      exports: [ENV],
    };
  }
}
