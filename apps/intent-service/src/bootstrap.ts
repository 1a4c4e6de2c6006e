import type { ConsoleLogger, INestMicroservice } from '@nestjs/common';
import { INTENT_SERVICE_QUEUE } from '@tradeinfra/contracts';
import { createLogger as serviceLogger, startMicroservice, useFastKeccak } from '@tradeinfra/service-kit';
import { AppModule } from './app.module.js';
import { IntentsRepository } from './intents/intents.repository.js';
import type { IntentServiceEnv } from './config/env.js';

export function createLogger(env: Pick<IntentServiceEnv, 'LOG_FORMAT'>): ConsoleLogger {
  return serviceLogger('intent-service', env);
}

/** The intent service: a NATS microservice in the `intent-service` queue group. */
export function createIntentService(env: IntentServiceEnv, logger: ConsoleLogger | false = createLogger(env)): Promise<INestMicroservice> {
  // ethers' hashes on the launch path: every relay request body, every signer recovered, every checksum.
  useFastKeccak();
  return startMicroservice(
    AppModule.forRoot(env),
    {
      name: 'intent-service',
      queue: INTENT_SERVICE_QUEUE,
      nats: env,
      logRequests: env.LOG_REQUESTS,
      health: { ...env, ready: (app) => app.get(IntentsRepository).ping() },
    },
    logger,
  );
}
