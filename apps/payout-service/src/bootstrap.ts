import type { ConsoleLogger, INestMicroservice } from '@nestjs/common';
import { PAYOUT_SERVICE_QUEUE } from '@tradeinfra/contracts';
import { createLogger as serviceLogger, startMicroservice } from '@tradeinfra/service-kit';
import { AppModule } from './app.module.js';
import { LedgerRepository } from './ledger/ledger.repository.js';
import type { PayoutServiceEnv } from './config/env.js';

export function createLogger(env: Pick<PayoutServiceEnv, 'LOG_FORMAT'>): ConsoleLogger {
  return serviceLogger('payout-service', env);
}

/** The payout service: a NATS microservice in the `payout-service` queue group. */
export function createPayoutService(env: PayoutServiceEnv, logger: ConsoleLogger | false = createLogger(env)): Promise<INestMicroservice> {
  return startMicroservice(
    AppModule.forRoot(env),
    {
      name: 'payout-service',
      queue: PAYOUT_SERVICE_QUEUE,
      nats: env,
      logRequests: env.LOG_REQUESTS,
      health: { ...env, ready: (app) => app.get(LedgerRepository).ping() },
    },
    logger,
  );
}
