import { Injectable, Module, type DynamicModule, type OnApplicationShutdown, type PipeTransform } from '@nestjs/common';
import { MessagePattern, Payload, ServerNats } from '@nestjs/microservices';
import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
import { parseInput, toFieldIssues, type MessageOf, type NatsRoute, type ReplyOf, type RequestOf } from '@tradeinfra/contracts';
import { connectNats, type NatsEnv } from './nats-connect.js';
import { natsRequest, natsRequestStream, type NatsRequestOptions } from './nats-request.js';

/** A message or reply that does not match its route's schema (checked with NATS_CHECK_MESSAGES only). */
export class RouteMessageMismatch extends Error {
  constructor(route: NatsRoute, what: 'request' | 'reply', issues: readonly { path: string; message: string }[]) {
    super(`${route.subject}: the ${what} does not match NATS_ROUTES' ${what} schema: ${issues.map((i) => `${i.path || '(root)'} ${i.message}`).join('; ')}`);
    this.name = 'RouteMessageMismatch';
  }
}

/** Throws RouteMessageMismatch unless `value` matches the route's `what` schema. */
export function checkRouteMessage(route: NatsRoute, what: 'request' | 'reply', value: unknown): void {
  const result = route[what].safeParse(value);
  if (!result.success) throw new RouteMessageMismatch(route, what, toFieldIssues(result.error.issues));
}

export interface RouteRequestOptions extends NatsRequestOptions {
  /** Check the request and the reply against the route's schemas (NATS_CHECK_MESSAGES). */
  check?: boolean;
}

/** natsRequest on a route: the message and reply typed (and, with `check`, checked) by its schemas. */
export async function routeRequest<R extends NatsRoute>(
  nc: NatsConnection,
  route: R,
  message: RequestOf<R>,
  options: RouteRequestOptions,
): Promise<ReplyOf<R>> {
  if (options.check) checkRouteMessage(route, 'request', message);
  const reply = await natsRequest<ReplyOf<R>>(nc, route.subject, message, options);
  if (options.check) checkRouteMessage(route, 'reply', reply);
  return reply;
}

/** natsRequestStream on a stream route: each value typed (and, with `check`, checked) by the reply schema. */
export async function routeRequestStream<R extends NatsRoute>(
  nc: NatsConnection,
  route: R,
  message: RequestOf<R>,
  options: RouteRequestOptions,
  onValue: (value: ReplyOf<R>) => boolean,
): Promise<void> {
  if (options.check) checkRouteMessage(route, 'request', message);
  await natsRequestStream<ReplyOf<R>>(nc, route.subject, message, options, (value) => {
    if (options.check) checkRouteMessage(route, 'reply', value);
    return onValue(value);
  });
}

/** The NATS handler of `route` (its subject from the table). */
export function Handles(route: NatsRoute): MethodDecorator {
  return MessagePattern(route.subject);
}

/** The handler's message, parsed with the route's request schema (a mismatch answers ValidationError). */
export function RouteMessage(route: NatsRoute): ParameterDecorator {
  return Payload(new RouteMessagePipe(route));
}

class RouteMessagePipe implements PipeTransform {
  constructor(private readonly route: NatsRoute) {}

  transform(value: unknown): MessageOf<NatsRoute> {
    return parseInput(this.route.request, value);
  }
}

/**
 * The process's one NATS connection for requests, publishing and subscriptions (the microservice
 * transport shares it too: see startMicroservice), opened on first use with natsConnectionOptions.
 */
@Injectable()
export class NatsConnections implements OnApplicationShutdown {
  private nc: Promise<NatsConnection> | null = null;

  constructor(
    readonly env: NatsEnv,
    /** The connection's name (the process's), as the NATS server lists it. */
    readonly name: string,
    private readonly extra: Partial<ConnectionOptions> = {},
  ) {}

  /** The connection, opened on first call (a failed open is retried on the next). */
  connection(): Promise<NatsConnection> {
    this.nc ??= connectNats(this.env, this.name, this.extra).catch((err: unknown) => {
      this.nc = null;
      throw err;
    });
    return this.nc;
  }

  /** routeRequest on this connection, checked when NATS_CHECK_MESSAGES is on. */
  async request<R extends NatsRoute>(route: R, message: RequestOf<R>, options: NatsRequestOptions): Promise<ReplyOf<R>> {
    return routeRequest(await this.connection(), route, message, { ...options, check: this.env.NATS_CHECK_MESSAGES });
  }

  /** routeRequestStream on this connection, checked when NATS_CHECK_MESSAGES is on. */
  async requestStream<R extends NatsRoute>(
    route: R,
    message: RequestOf<R>,
    options: NatsRequestOptions,
    onValue: (value: ReplyOf<R>) => boolean,
  ): Promise<void> {
    return routeRequestStream(await this.connection(), route, message, { ...options, check: this.env.NATS_CHECK_MESSAGES }, onValue);
  }

  /** Closes the connection (drained first): after the transport and every other user have stopped. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    const nc = await this.nc?.catch(() => null);
    this.nc = null;
    if (nc && !nc.isClosed()) await nc.drain().catch(() => nc.close());
  }
}

/** Provides the process's NatsConnections to every module (startMicroservice adds it; the gateway's NatsModule too). */
@Module({})
export class NatsConnectionsModule {
  static forRoot(nats: NatsConnections): DynamicModule {
    return { module: NatsConnectionsModule, global: true, providers: [{ provide: NatsConnections, useValue: nats }], exports: [NatsConnections] };
  }
}

/**
 * Nest's NATS transport on the process's one connection: its close unsubscribes, waits for the
 * handlers in flight (at most `gracePeriodMs`, not always all of it, as Nest's own would), and
 * leaves the connection to NatsConnections.
 */
export class SharedConnectionNatsServer extends ServerNats {
  private inFlight = 0;
  private idle: (() => void) | null = null;
  private readonly gracePeriodMs: number;

  constructor(
    private readonly nats: NatsConnections,
    options: Omit<NonNullable<ConstructorParameters<typeof ServerNats>[0]>, 'gracefulShutdown' | 'gracePeriod'> & { gracePeriodMs: number },
  ) {
    const { gracePeriodMs, ...rest } = options;
    super({ ...rest, gracefulShutdown: false });
    this.gracePeriodMs = gracePeriodMs;
  }

  /** Ready once the server has the subscriptions: a request sent right after start is answered, not refused with "no responders". */
  override start(callback: (err?: unknown) => void): void {
    const nc = (this as unknown as { natsClient: NatsConnection }).natsClient;
    this.bindEvents(nc);
    nc.flush().then(() => callback(), callback);
  }

  override getMessageHandler(channel: string): (...args: unknown[]) => Promise<unknown> {
    const handle = super.getMessageHandler(channel) as (...args: unknown[]) => Promise<unknown>;
    return async (...args: unknown[]) => {
      this.inFlight++;
      try {
        return await handle.apply(this, args);
      } finally {
        if (--this.inFlight === 0) this.idle?.();
      }
    };
  }

  override async close(): Promise<void> {
    // Nest keeps its subscriptions private; they are unsubscribed here as its graceful close does.
    for (const sub of (this as unknown as { subscriptions: { unsubscribe(): void }[] }).subscriptions) sub.unsubscribe();
    let timer: NodeJS.Timeout | undefined;
    if (this.inFlight > 0)
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        timer = setTimeout(resolve, this.gracePeriodMs);
      });
    clearTimeout(timer);
    this.idle = null;
    // A handler's reply is published on the tick after it returns.
    await new Promise((resolve) => setImmediate(resolve));
    await super.close();
  }

  override async createNatsClient(): Promise<NatsConnection> {
    const nc = await this.nats.connection();
    return new Proxy(nc, {
      get(target, prop) {
        if (prop === 'close') return () => Promise.resolve();
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}
