import 'reflect-metadata';
import { ConsoleLogger, type INestMicroservice, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { INTENT_SERVICE_QUEUE } from '@tradeinfra/contracts';
import { AppModule } from './app.module.js';
import type { IntentServiceEnv } from './config/env.js';

export function createLogger(env: Pick<IntentServiceEnv, 'LOG_FORMAT'>, levels?: LogLevel[]): ConsoleLogger {
  return new ConsoleLogger({
    prefix: 'intent-service',
    json: env.LOG_FORMAT === 'json',
    logLevels: levels ?? ['fatal', 'error', 'warn', 'log'],
  });
}

/** The intent service: a NATS microservice in the `intent-service` queue group. */
export async function createIntentService(
  env: IntentServiceEnv,
  logger: ConsoleLogger | false = createLogger(env),
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
    transport: Transport.NATS,
    options: {
      servers: env.NATS_URL,
      queue: INTENT_SERVICE_QUEUE,
      name: 'intent-service',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      gracefulShutdown: true,
      gracePeriod: 1_000,
    },
    logger,
    bufferLogs: false,
  });
  app.enableShutdownHooks();
  await app.listen();
  return app;
}
