import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
export { createServiceDataSource, DatabaseModule, runMigrations, SafeQueryLogger, type ServiceDatabaseOptions } from './database.js';
export { checkNatsServer, MIN_NATS_SERVER_VERSION, NATS_TERM_REASON_VERSION, natsVersionAtLeast, requireNatsServerVersion } from './nats-server.js';
import { requireNatsServerVersion } from './nats-server.js';
import { NatsConnections, NatsConnectionsModule, SharedConnectionNatsServer } from './nats-routes.js';
import type { NatsEnv } from './nats-connect.js';
import { startHealthServer, type HealthServerSettings } from './health-server.js';
export { HEALTH_ENV, startHealthServer, type HealthServerSettings } from './health-server.js';
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
import { IncomingRequestDeserializer, NatsContext, type MicroserviceOptions } from '@nestjs/microservices';
import {
  ContractValidationError,
  ErrorName,
  JsonTooDeepError,
  MAX_NATS_JSON_DEPTH,
  parseJson,
  REQUEST_ID_HEADER,
  type RpcErrorPayload,
} from '@tradeinfra/contracts';
import { tap, throwError, type Observable } from 'rxjs';
import { infrastructureErrorPayload, infrastructureFailure, type InfrastructureFailure } from './infrastructure-errors.js';
import { useFastKeccak } from './keccak.js';
import { systemClock, type Clock } from './clock.js';

export interface LogSettings {
  LOG_FORMAT: 'pretty' | 'json';
}

/**
 * Nest's console logger, naming its service: `[name]`-prefixed lines, or with LOG_FORMAT=json one
 * JSON object per line with a `service` field (so lines from many services can share one sink).
 */
export class ServiceLogger extends ConsoleLogger {
  readonly service: string;

  constructor(
    service: string,
    options: ConsoleLoggerOptions = {},
    private readonly clock: Clock = systemClock,
  ) {
    super({ ...options, prefix: service });
    this.service = service;
  }

  /**
   * Nest's timestamp (its Intl formatter, to the second), formatted once a second rather than on
   * every line: with LOG_REQUESTS (`npm start`'s default) that is one Intl call per request.
   */
  protected override getTimestamp(): string {
    const second = Math.floor(this.clock() / 1000);
    if (second !== this.stampSecond) {
      this.stamp = super.getTimestamp();
      this.stampSecond = second;
    }
    return this.stamp;
  }

  private stampSecond = -1;
  private stamp = '';

  /**
   * `log` lines (the request log, one per request with LOG_REQUESTS) go out together, at most
   * LOG_FLUSH_MS late: stdout to a pipe or a file is a synchronous write(2) per call, a quarter of
   * the gateway's CPU per create. Any other level first flushes them, then writes at once.
   */
  protected override printMessages(...args: Parameters<ConsoleLogger['printMessages']>): void {
    const [, , logLevel, stream] = args;
    if (logLevel !== 'log' || stream === 'stderr') {
      flushLogs();
      super.printMessages(...args);
      return;
    }
    const write = process.stdout.write;
    process.stdout.write = bufferStdout;
    try {
      super.printMessages(...args);
    } finally {
      process.stdout.write = write;
    }
  }

  protected override getJsonLogObject(...args: Parameters<ConsoleLogger['getJsonLogObject']>): ReturnType<ConsoleLogger['getJsonLogObject']> {
    return { service: this.service, ...super.getJsonLogObject(...args) };
  }
}

/** How long a `log` line may wait for the lines after it: one write(2) for a few ms of requests. */
export const LOG_FLUSH_MS = 10;

let buffered: string[] = [];
let flushScheduled = false;
let flushOnExit = false;

/** Keeps a `log` line for the next flush (within LOG_FLUSH_MS, or before a warning, or at exit). */
const bufferStdout = ((chunk: string | Uint8Array) => {
  buffered.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
  if (!flushScheduled) {
    flushScheduled = true;
    setTimeout(flushLogs, LOG_FLUSH_MS).unref();
  }
  if (!flushOnExit) {
    flushOnExit = true;
    process.on('exit', flushLogs);
  }
  return true;
}) as typeof process.stdout.write;

/** Writes the `log` lines kept so far to stdout, in one write. */
export function flushLogs(): void {
  flushScheduled = false;
  if (buffered.length === 0) return;
  const text = buffered.join('');
  buffered = [];
  process.stdout.write(text);
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

/** An infrastructure failure in one line: a database error as describeError gives it; NATS's by class and message (no stack). */
export function describeFailure(err: unknown, failure: InfrastructureFailure): string {
  if (failure.dependency === 'database') return describeError(err);
  return `${(err as Error).name}: ${(err as Error).message}`;
}

/** An error a service means to send: it knows its wire form. */
interface PayloadError {
  toPayload(): RpcErrorPayload;
}

function isPayloadError(value: unknown): value is PayloadError {
  return typeof (value as PayloadError | null)?.toPayload === 'function';
}

function natsInfo(host: ArgumentsHost | ExecutionContext): { subject: string; requestId: string } {
  const ctx = host.switchToRpc().getContext<unknown>();
  if (!(ctx instanceof NatsContext)) return { subject: 'unknown', requestId: '-' };
  return { subject: ctx.getSubject(), requestId: ctx.getHeaders()?.get(REQUEST_ID_HEADER) || '-' };
}

/**
 * Serialises every failure of a NATS handler as `{name, message, details}`: the service's own
 * errors (and contract validation errors) as they describe themselves; the database or NATS
 * failing as ServiceUnavailable or Timeout (infrastructureFailure); anything else is logged
 * with the request id and answered as InternalError without internals.
 */
@Catch()
export class AllRpcExceptionsFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('Rpc');

  catch(exception: unknown, host: ArgumentsHost): Observable<RpcErrorPayload> {
    if (isPayloadError(exception)) return throwError(() => exception.toPayload());
    const { subject, requestId } = natsInfo(host);
    const failure = infrastructureFailure(exception);
    if (failure) {
      this.logger.warn(`${failure.dependency} unavailable on ${subject} (request ${requestId}): ${describeFailure(exception, failure)}`);
      return throwError(() => infrastructureErrorPayload(failure));
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

/** What a request held that could not be read (not JSON, or nested too deep): its handler never runs. */
class UnreadablePayload {
  constructor(readonly problem: string) {}
}

/**
 * Reads a NATS request with exact integers at any size (the gateway forwards big JSON integers as
 * they came), nested at most MAX_NATS_JSON_DEPTH deep. A request it cannot read still reaches its
 * subject's handler, as an UnreadablePayload that RefuseUnreadableInterceptor answers with a
 * ValidationError (thrown here, Nest would log it and leave the caller waiting for a timeout).
 */
class ExactJsonDeserializer extends IncomingRequestDeserializer {
  override deserialize(value: { string(): string }, options?: Record<string, unknown>) {
    const text = value.string();
    try {
      return super.deserialize(parseJson(text, MAX_NATS_JSON_DEPTH), options);
    } catch (err) {
      const problem = err instanceof JsonTooDeepError ? `must not nest arrays and objects deeper than ${err.maxDepth} levels` : 'is not valid JSON';
      // The envelope's id is its last field (encodeRpcRequest); any id gets the answer to the caller.
      const id = /"id":"([0-9A-Za-z-]{1,64})"\}\s*$/.exec(text.slice(-100))?.[1] ?? randomUUID();
      return { pattern: options?.channel, data: new UnreadablePayload(problem), id };
    }
  }
}

/** Answers a request the deserializer could not read with a ValidationError, before any pipe or handler sees it. */
class RefuseUnreadableInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const data = context.switchToRpc().getData<unknown>();
    if (data instanceof UnreadablePayload) return throwError(() => new ContractValidationError([{ path: '', message: data.problem }]));
    return next.handle();
  }
}

export interface MicroserviceSettings {
  name: string;
  queue: string;
  nats: NatsEnv;
  logRequests: boolean;
  /** HEALTH_PORT/HEALTH_HOST and the service's own readiness check (its database): see startHealthServer. */
  health?: HealthServerSettings;
}

/**
 * Starts a NATS microservice in its queue group on the process's one connection (NatsConnections,
 * injectable everywhere), with the shared error filter and request log. Refuses a nats-server older
 * than MIN_NATS_SERVER_VERSION. With `health`, serves its probes over HTTP. Keccak-256 is the fast one.
 */
export async function startMicroservice(module: DynamicModule, settings: MicroserviceSettings, logger: ConsoleLogger | false): Promise<INestMicroservice> {
  useFastKeccak();
  // The process's one NATS connection: the transport below and every provider share it. Without
  // noAsyncTraces each request (a JetStream publish too) allocates two errors up front for a
  // failure's stack trace, which nothing logs; failures keep their class, message and cause.
  const nats = new NatsConnections(settings.nats, settings.name, { noAsyncTraces: true });
  let app: INestMicroservice;
  try {
    requireNatsServerVersion((await nats.connection()).info?.version, settings.name);
    const withNats: DynamicModule = { ...module, imports: [...(module.imports ?? []), NatsConnectionsModule.forRoot(nats)] };
    app = await NestFactory.createMicroservice<MicroserviceOptions>(withNats, {
      strategy: new SharedConnectionNatsServer(nats, {
        queue: settings.queue,
        gracePeriodMs: 1_000,
        deserializer: new ExactJsonDeserializer(),
      }),
      logger,
      bufferLogs: false,
    });
  } catch (err) {
    await nats.close();
    throw err;
  }
  app.useGlobalFilters(new AllRpcExceptionsFilter());
  app.useGlobalInterceptors(new RequestLogInterceptor(settings.logRequests), new RefuseUnreadableInterceptor());
  app.enableShutdownHooks();
  await app.listen();
  if (settings.health && settings.health.HEALTH_PORT > 0) await startHealthServer(app, settings.health);
  return app;
}
export { infrastructureErrorPayload, infrastructureFailure, isDatabaseUnavailable, type InfrastructureFailure } from './infrastructure-errors.js';
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
export { ensureConsumer, ensureStream, ReplicasMismatch } from './jetstream.js';
export { CHAIN_RPC_ENV, envFlag, envInt, loadServiceEnv, LOG_ENV, POSTGRES_ENV, urlList } from './env.js';
export {
  checkNatsEnv,
  connectNats,
  NATS_ENV,
  natsConnectionOptions,
  natsEnvOf,
  natsInboxPrefix,
  parseNatsServers,
  plainNatsEnv,
  type NatsEnv,
} from './nats-connect.js';
export {
  checkRouteMessage,
  Handles,
  NatsConnections,
  RouteMessage,
  RouteMessageMismatch,
  routeRequest,
  routeRequestStream,
  type RouteRequestOptions,
} from './nats-routes.js';
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
export { ethersTransaction, matchSigned, signedTransaction, signingHash, unsignedFields, unsignedSerialized, type SignedParts } from './eip1559.js';
export { personalSign, recoverAddress, recoverSigner, signDigest } from './secp256k1.js';
export { BundleRelays, flashbotsSignature, verifyFlashbotsSignature, type RelayBundle } from './bundle-relays.js';
export { PeriodicTask } from './periodic-task.js';
export { CLOCK, systemClock, type Clock } from './clock.js';
