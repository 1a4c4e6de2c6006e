import type { ConsoleLogger, INestMicroservice } from '@nestjs/common';
import { SIMULATION_SERVICE_QUEUE } from '@tradeinfra/contracts';
import { createLogger as serviceLogger, startMicroservice } from '@tradeinfra/service-kit';
import { AppModule } from './app.module.js';
import type { SimulationEnv } from './config/env.js';

export function createLogger(env: Pick<SimulationEnv, 'LOG_FORMAT'>): ConsoleLogger {
  return serviceLogger('simulation-service', env);
}

/** The simulation service: a NATS microservice in the `simulation-service` queue group. */
export function createSimulationService(env: SimulationEnv, logger: ConsoleLogger | false = createLogger(env)): Promise<INestMicroservice> {
  return startMicroservice(
    AppModule.forRoot(env),
    // The service logs its own line per simulation (with the simulation's id), not the generic one.
    { name: 'simulation-service', queue: SIMULATION_SERVICE_QUEUE, nats: env, logRequests: false, health: env },
    logger,
  );
}
