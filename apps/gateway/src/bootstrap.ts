import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ConsoleLogger, Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ErrorName, REQUEST_ID_HEADER } from '@tradeinfra/contracts';
import { createLogger as serviceLogger, useFastKeccak } from '@tradeinfra/service-kit';
import express, { type RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-dist';
import { AppModule } from './app.module.js';
import type { GatewayEnv } from './config/env.js';
import { rawBody } from './http/body.js';
import { mountDashboard } from './dashboard/dashboard-page.js';
import { HttpErrorFilter } from './http/exception.filter.js';
import { GatewayError, httpStatusOf } from './http/gateway-error.js';
import { JsonBodyInterceptor, requestId, requestIdOf } from './http/request-context.js';
import { Metrics } from './metrics/metrics.js';
import { NATS_ENVELOPE_BYTES, ServiceClient } from './nats/service-client.js';

/** `[gateway]`-prefixed lines, or JSON lines with `service: "gateway"` with LOG_FORMAT=json. */
export function createLogger(env: Pick<GatewayEnv, 'LOG_FORMAT'>, levels?: LogLevel[]): ConsoleLogger {
  return serviceLogger('gateway', env, levels);
}

/**
 * One line per request: method, path, status, duration, request id. The path only: a query
 * string can hold a key (`?api_key=…`) or other secrets, and is never logged.
 */
function requestLog(): RequestHandler {
  const logger = new Logger('Request');
  return (req, res, next) => {
    const started = performance.now();
    const path = req.originalUrl.split('?')[0]!.slice(0, 512);
    res.on('finish', () => logger.log(`${req.method} ${path} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms request=${requestIdOf(req)}`));
    next();
  };
}

/**
 * Answers what Node's HTTP parser refuses before any route runs (a malformed request line or
 * header, headers too large, headers or body too slow) with the error object too, then closes
 * the connection.
 */
function answerClientErrors(server: Server): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex & { _httpMessage?: { headersSent?: boolean } | null }) => {
    // As Node's own handler: no answer on a dead socket, nor into a response already being written.
    if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const error =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new GatewayError(ErrorName.RequestTimeout, 'The request did not arrive in time')
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? new GatewayError(ErrorName.Validation, 'Request headers are too large', [{ path: 'headers', message: 'are too large' }])
          : new GatewayError(ErrorName.Validation, 'Malformed HTTP request', [{ path: '', message: 'is not a well-formed HTTP/1.1 request' }]);
    const body = JSON.stringify(error.body());
    const status = httpStatusOf(error.name);
    socket.end(
      `HTTP/1.1 ${status} ${status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}

/**
 * A body goes to a service in one NATS message, wrapped in the request envelope: a limit above
 * the server's max_payload (less the envelope) would let a valid body through that NATS then
 * refuses, so such a limit is lowered at start, with a warning naming both.
 */
export function fitBodyLimits(limits: { limit: number; byPath: Record<string, number> }, maxPayload: number): void {
  const most = maxPayload - NATS_ENVELOPE_BYTES;
  const logger = new Logger('Gateway');
  if (limits.limit > most) {
    logger.log(`BODY_LIMIT_BYTES ${limits.limit} lowered to ${most}: NATS max_payload is ${maxPayload}`);
    limits.limit = most;
  }
  for (const [path, limit] of Object.entries(limits.byPath)) {
    if (limit <= most) continue;
    logger.log(
      `the body limit of ${path} (${limit} bytes${path === '/v1/simulate' ? ', SIMULATE_BODY_LIMIT_BYTES' : ''}) lowered to ${most}: NATS max_payload is ${maxPayload}`,
    );
    limits.byPath[path] = most;
  }
}

/** The public HTTP gateway, listening on env.PORT (0: any free port). */
export async function createGateway(env: GatewayEnv, logger: ConsoleLogger | false = createLogger(env)): Promise<NestExpressApplication> {
  useFastKeccak(); // the checksums of every address it answers with
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(env), {
    bodyParser: false,
    logger,
  });
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', env.TRUST_PROXY);
  app.use(requestId());
  app.use(app.get(Metrics).middleware());
  if (env.LOG_REQUESTS) app.use(requestLog());
  // Lowered at start (below) to what NATS can carry once the body is wrapped for a service.
  const limits = {
    limit: env.BODY_LIMIT_BYTES,
    byPath: {
      '/v1/simulate': env.SIMULATE_BODY_LIMIT_BYTES,
      '/v1/intents': env.INTENTS_BATCH_BODY_LIMIT_BYTES,
      '/v1/intents/': env.INTENTS_BATCH_BODY_LIMIT_BYTES,
      '/v1/rpc': env.ORDERFLOW_BODY_LIMIT_BYTES,
      '/v1/mev': env.ORDERFLOW_BODY_LIMIT_BYTES,
    },
    timeoutMs: env.BODY_TIMEOUT_MS,
  };
  app.use(rawBody(limits));
  const assets = express.static(swaggerUi.getAbsoluteFSPath(), { index: false, fallthrough: true });
  // Other methods, and files it does not have, fall through to the error object (404).
  app.use('/docs/assets', ((req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? assets(req, res, next) : next())) as RequestHandler);
  mountDashboard(app);
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalInterceptors(new JsonBodyInterceptor());
  app.enableShutdownHooks();
  const server: Server = app.getHttpServer();
  // Headers must arrive within HEADERS_TIMEOUT_MS; the body within BODY_TIMEOUT_MS of them
  // (`rawBody`); Node's own bound on the whole request sits behind both. Node checks its two
  // every `connectionsCheckingInterval` (set before listen, when the checker starts).
  server.headersTimeout = env.HEADERS_TIMEOUT_MS;
  server.requestTimeout = env.HEADERS_TIMEOUT_MS + env.BODY_TIMEOUT_MS + 5_000;
  server.keepAliveTimeout = 65_000;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1_000, env.HEADERS_TIMEOUT_MS);
  answerClientErrors(server);
  await app.init();
  fitBodyLimits(limits, app.get(ServiceClient).maxPayload);
  await app.listen(env.PORT, env.HOST);
  return app;
}
