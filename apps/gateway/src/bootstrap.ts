import 'reflect-metadata';
import { ConsoleLogger, Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-dist';
import { AppModule } from './app.module.js';
import type { GatewayEnv } from './config/env.js';
import { HttpErrorFilter } from './http/exception.filter.js';
import { JsonBodyInterceptor, rawBody, requestId, requestIdOf } from './http/request-context.js';
import { Metrics } from './metrics/metrics.js';

export function createLogger(env: Pick<GatewayEnv, 'LOG_FORMAT'>, levels?: LogLevel[]): ConsoleLogger {
  return new ConsoleLogger({
    prefix: 'gateway',
    json: env.LOG_FORMAT === 'json',
    logLevels: levels ?? ['fatal', 'error', 'warn', 'log'],
  });
}

function requestLog(): RequestHandler {
  const logger = new Logger('Request');
  return (req, res, next) => {
    const started = performance.now();
    res.on('finish', () =>
      logger.log(`${req.method} ${req.originalUrl} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms request=${requestIdOf(req)}`),
    );
    next();
  };
}

/** The public HTTP gateway, listening on env.PORT (0: any free port). */
export async function createGateway(
  env: GatewayEnv,
  logger: ConsoleLogger | false = createLogger(env),
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(env), {
    bodyParser: false,
    logger,
  });
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());
  app.use(app.get(Metrics).middleware());
  if (env.LOG_REQUESTS) app.use(requestLog());
  app.use(rawBody(env.BODY_LIMIT_BYTES, { '/v1/simulate': env.SIMULATE_BODY_LIMIT_BYTES }));
  app.use('/docs/assets', express.static(swaggerUi.getAbsoluteFSPath(), { index: false, fallthrough: false }));
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalInterceptors(new JsonBodyInterceptor());
  app.enableShutdownHooks();
  await app.listen(env.PORT, env.HOST);
  const server = app.getHttpServer();
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 65_000;
  return app;
}
