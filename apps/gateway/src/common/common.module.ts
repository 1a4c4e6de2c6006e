import { Global, Module, type DynamicModule } from '@nestjs/common';
import { CLOCK, DatabaseModule, systemClock } from '@tradeinfra/service-kit';
import { ENV, type GatewayEnv } from '../config/env.js';
import { createDataSource } from '../database/data-source.js';

/** What every feature uses: the env, the clock and the database. */
@Global()
@Module({})
export class CommonModule {
  static forRoot(env: GatewayEnv): DynamicModule {
    return {
      module: CommonModule,
      imports: [DatabaseModule.forRoot(() => createDataSource(env))],
      providers: [
        { provide: ENV, useValue: env },
        { provide: CLOCK, useValue: systemClock },
      ],
      exports: [ENV, CLOCK],
    };
  }
}
