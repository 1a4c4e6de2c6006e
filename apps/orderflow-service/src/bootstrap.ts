import type { ConsoleLogger, INestMicroservice } from '@nestjs/common';
import { ORDERFLOW_SERVICE_QUEUE } from '@tradeinfra/contracts';
import { createLogger as serviceLogger, startMicroservice } from '@tradeinfra/service-kit';
import { AppModule } from './app.module.js';
import { PrivateTxsRepository } from './intake/private-txs.repository.js';
import type { OrderflowServiceEnv } from './config/env.js';

export function createLogger(env: Pick<OrderflowServiceEnv, 'LOG_FORMAT'>): ConsoleLogger {
  return serviceLogger('orderflow-service', env);
}

/** The orderflow service: a NATS microservice in the `orderflow-service` queue group. */
export function createOrderflowService(env: OrderflowServiceEnv, logger: ConsoleLogger | false = createLogger(env)): Promise<INestMicroservice> {
  return startMicroservice(
    AppModule.forRoot(env),
    {
      name: 'orderflow-service',
      queue: ORDERFLOW_SERVICE_QUEUE,
      nats: env,
      logRequests: env.LOG_REQUESTS,
      health: { ...env, ready: (app) => app.get(PrivateTxsRepository).ping() },
    },
    logger,
  );
}
