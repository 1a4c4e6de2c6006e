import { Global, Module, type DynamicModule } from '@nestjs/common';
import { CLOCK, DatabaseModule, systemClock } from '@tradeinfra/service-kit';
import { ENV, type OrderflowServiceEnv } from '../config/env.js';
import { createDataSource } from '../database/data-source.js';
import { Chains } from './chains.js';
import { NatsIo, SimulationClient } from './nats-io.js';

/** What every feature uses: the env, the clock, the database, the chains, NATS and the simulation service. */
@Global()
@Module({})
export class CommonModule {
  static forRoot(env: OrderflowServiceEnv): DynamicModule {
    return {
      module: CommonModule,
      imports: [DatabaseModule.forRoot(() => createDataSource(env))],
      providers: [{ provide: ENV, useValue: env }, { provide: CLOCK, useValue: systemClock }, NatsIo, Chains, SimulationClient],
      exports: [ENV, CLOCK, NatsIo, Chains, SimulationClient],
    };
  }
}
