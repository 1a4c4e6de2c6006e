import 'reflect-metadata';
export { createServiceDataSource, DatabaseModule, runMigrations, SafeQueryLogger, type ServiceDatabaseOptions } from './database.js';
export { checkNatsServer, MIN_NATS_SERVER_VERSION, NATS_TERM_REASON_VERSION, natsVersionAtLeast, requireNatsServerVersion } from './nats-server.js';
import { checkNatsServer } from './nats-server.js';
import {
  Catch,
  ConsoleLogger,
  Logger,
  type ConsoleLoggerOptions,
  type ArgumentsHost,
  type CallHandler,
  type DynamicModule,
  type ExecutionContext,
  type INestMicroservice,
  type LogLevel,
  type NestInterceptor,
  type RpcExceptionFilter,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IncomingRequestDeserializer, NatsContext, Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { ErrorName, parseJson, REQUEST_ID_HEADER, type RpcErrorPayload } from '@tradeinfra/contracts';
import { tap, throwError, type Observable } from 'rxjs';
import { useFastKeccak } from './keccak.js';

export interface LogSettings {
  LOG_FORMAT: 'pretty' | 'json';
}

/**
 * Nest's console logger, naming its service: `[name]`-prefixed lines, or with LOG_FORMAT=json one
 * JSON object per line with a `service` field (so lines from many services can share one sink).
 */
export class ServiceLogger extends ConsoleLogger {
  readonly service: string;

  constructor(service: string, options: ConsoleLoggerOptions = {}) {
    super({ ...options, prefix: service });
    this.service = service;
  }

  /**
   * Nest's timestamp (its Intl formatter, to the second), formatted once a second rather than on
   * every line: with LOG_REQUESTS (`npm start`'s default) that is one Intl call per request.
   */
  protected override getTimestamp(): string {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.stampSecond) {
      this.stamp = super.getTimestamp();
      this.stampSecond = second;
    }
    return this.stamp;
  }

  private stampSecond = -1;
  private stamp = '';

  protected override getJsonLogObject(...args: Parameters<ConsoleLogger['getJsonLogObject']>): ReturnType<ConsoleLogger['getJsonLogObject']> {
    return { service: this.service, ...super.getJsonLogObject(...args) };
  }
}

/** The services' logger: `[name]` prefixed lines, or JSON lines (with `service: name`) with LOG_FORMAT=json. */
export function createLogger(name: string, env: LogSettings, levels: LogLevel[] = ['fatal', 'error', 'warn', 'log']): ServiceLogger {
  return new ServiceLogger(name, { json: env.LOG_FORMAT === 'json', logLevels: levels });
}

/**
 * What to log about a failure: for a database error its SQLSTATE code, its message with every
 * quoted value elided (Postgres quotes the offending input: `invalid input syntax for type
 * uuid: "…"`) and the table/column/constraint it names; never the statement or its parameters,
 * which TypeORM's QueryFailedError carries. Anything else: its stack.
 */
export function describeError(err: unknown): string {
  const db = databaseErrorOf(err);
  if (!db) return (err as Error | null)?.stack ?? String(err);
  const where = (['table', 'column', 'constraint', 'routine'] as const).filter((k) => typeof db[k] === 'string' && db[k]).map((k) => `${k} ${db[k]}`);
  const message = db.message.replace(/"[^"]*"/g, '"…"').slice(0, 300);
  return `database error ${db.code}: ${message}${where.length > 0 ? ` (${where.join(', ')})` : ''}`;
}

interface DriverError {
  code: string;
  message: string;
  table?: unknown;
  column?: unknown;
  constraint?: unknown;
  routine?: unknown;
}

/** The driver's error inside a TypeORM error, or the pg error itself; null when it is not a database error. */
function databaseErrorOf(err: unknown): DriverError | null {
  const e = err as { driverError?: unknown; query?: unknown } | null;
  if (e === null || typeof e !== 'object') return null;
  const driver = (e.driverError ?? e) as Partial<DriverError> & { code?: unknown; message?: unknown };
  const sqlState = typeof driver.code === 'string' && /^[0-9A-Z]{5}$/.test(driver.code);
  if (!sqlState && e.driverError === undefined && e.query === undefined) return null;
  return {
    ...driver,
    code: sqlState ? (driver.code as string) : 'unknown',
    message: typeof driver.message === 'string' ? driver.message : 'query failed',
  };
}

/** An error a service means to send: it knows its wire form. */
interface PayloadError {
  toPayload(): RpcErrorPayload;
}

function isPayloadError(value: unknown): value is PayloadError {
  return typeof (value as PayloadError | null)?.toPayload === 'function';
}

/** Postgres/socket errors that mean "the database is unavailable", not a bug. */
const UNAVAILABLE_CODES = new Set([
  '53300',
  '53400',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

/** True when the error (or the driver error inside it) says the database cannot be reached right now. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string }; message?: string } | null;
  const code = e?.driverError?.code ?? e?.code;
  return (code !== undefined && UNAVAILABLE_CODES.has(code)) || /Connection terminated|timeout exceeded when trying to connect/i.test(e?.message ?? '');
}

function natsInfo(host: ArgumentsHost | ExecutionContext): { subject: string; requestId: string } {
  const ctx = host.switchToRpc().getContext<unknown>();
  if (!(ctx instanceof NatsContext)) return { subject: 'unknown', requestId: '-' };
  return { subject: ctx.getSubject(), requestId: ctx.getHeaders()?.get(REQUEST_ID_HEADER) || '-' };
}

/**
 * Serialises every failure of a NATS handler as `{name, message, details}`: the service's own
 * errors (and contract validation errors) as they describe themselves; anything else is logged
 * with the request id and answered as InternalError without internals.
 */
@Catch()
export class AllRpcExceptionsFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('Rpc');

  catch(exception: unknown, host: ArgumentsHost): Observable<RpcErrorPayload> {
    if (isPayloadError(exception)) return throwError(() => exception.toPayload());
    const { subject, requestId } = natsInfo(host);
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn(`database unavailable on ${subject} (request ${requestId}): ${(exception as Error).message}`);
      return throwError(() => ({ name: ErrorName.ServiceUnavailable, message: 'The database is unavailable; retry shortly', details: null }));
    }
    this.logger.error(`unhandled error on ${subject} (request ${requestId}): ${describeError(exception)}`);
    return throwError(() => ({ name: ErrorName.Internal, message: 'Internal error', details: { requestId: requestId === '-' ? null : requestId } }));
  }
}

/** One log line per NATS request (subject, x-request-id, outcome, duration), when enabled. */
export class RequestLogInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Request');

  constructor(private readonly enabled: boolean) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!this.enabled) return next.handle();
    const { subject, requestId } = natsInfo(context);
    const started = performance.now();
    const done = (outcome: string) => this.logger.log(`${subject} request=${requestId} ${outcome} ${(performance.now() - started).toFixed(1)}ms`);
    return next.handle().pipe(
      tap({
        complete: () => done('ok'),
        error: (err: { name?: string }) => done(`failed:${err?.name ?? 'Error'}`),
      }),
    );
  }
}

/** Reads a NATS request with exact integers at any size (the gateway forwards big JSON integers as they came). */
class ExactJsonDeserializer extends IncomingRequestDeserializer {
  override deserialize(value: { string(): string }, options?: Record<string, unknown>) {
    return super.deserialize(parseJson(value.string()), options);
  }
}

export interface MicroserviceSettings {
  name: string;
  queue: string;
  natsUrl: string;
  logRequests: boolean;
}

/**
 * Starts a NATS microservice in its queue group (so replicas share the load), reconnecting
 * forever, with the shared error filter and request log. Refuses to start on a nats-server
 * older than MIN_NATS_SERVER_VERSION. Every Keccak-256 of the process is the fast one (useFastKeccak).
 */
export async function startMicroservice(module: DynamicModule, settings: MicroserviceSettings, logger: ConsoleLogger | false): Promise<INestMicroservice> {
  useFastKeccak();
  await checkNatsServer(settings.natsUrl, settings.name);
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, {
    transport: Transport.NATS,
    options: {
      servers: settings.natsUrl,
      queue: settings.queue,
      name: settings.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      gracefulShutdown: true,
      gracePeriod: 1_000,
      deserializer: new ExactJsonDeserializer(),
    },
    logger,
    bufferLogs: false,
  });
  app.useGlobalFilters(new AllRpcExceptionsFilter());
  app.useGlobalInterceptors(new RequestLogInterceptor(settings.logRequests));
  app.enableShutdownHooks();
  await app.listen();
  return app;
}
export { HttpJsonClient, HttpJsonUnavailable, type HttpJsonFailure } from './http-json.js';
export { ChainRpc, NodeBehind, type ChainRpcOptions, type EndpointState, type EndpointStatus } from './chain-rpc.js';
export {
  RpcEndpoint,
  RpcError,
  RpcUnavailable,
  type RpcEndpointOptions,
  type RpcCall,
  type RpcErrorObject,
  type RpcReplyItem,
  type RpcUnavailableReason,
} from './json-rpc.js';
export { NatsSimulationClient, type SimulationRequest } from './simulation-client.js';
export { ADVISORY_LOCKS } from './locks.js';
export { ensureConsumer, ensureStream } from './jetstream.js';
export { CHAIN_RPC_ENV, envFlag, envInt, loadServiceEnv, LOG_ENV, NATS_ENV, POSTGRES_ENV, urlList } from './env.js';
export {
  NATS_HEADERS_BYTES,
  natsRequest,
  NatsRequestFailed,
  natsRequestStream,
  ServiceReplyError,
  type NatsRequestFailure,
  type NatsRequestOptions,
} from './nats-request.js';
export { ServiceError } from './service-error.js';
export { keccak256Bytes, useFastKeccak } from './keccak.js';
export { ethersTransaction, matchSigned, signedTransaction, signingHash, unsignedFields, type SignedParts } from './eip1559.js';
export { personalSign, recoverAddress, recoverSigner } from './secp256k1.js';
export { BundleRelays, flashbotsSignature, verifyFlashbotsSignature, type RelayBundle } from './bundle-relays.js';
export { PeriodicTask } from './periodic-task.js';
