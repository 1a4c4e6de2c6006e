import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ENV, type SimulationEnv } from '../config/env.js';
import { CLOCK, systemClock } from './clock.js';

/** What every feature uses: the env and the clock. */
@Global()
@Module({})
export class CommonModule {
  static forRoot(env: SimulationEnv): DynamicModule {
    return {
      module: CommonModule,
      providers: [
        { provide: ENV, useValue: env },
        { provide: CLOCK, useValue: systemClock },
      ],
      exports: [ENV, CLOCK],
    };
  }
}
