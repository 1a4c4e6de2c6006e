import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { ErrorName, type NatsRoute, type ReplyOf, type RequestOf } from '@tradeinfra/contracts';
import { checkRouteMessage, NatsConnections, natsRequest, NatsRequestFailed, ServiceReplyError } from '@tradeinfra/service-kit';
import { ENV, type GatewayEnv } from '../config/env.js';
import { GatewayError } from '../http/gateway-error.js';

/**
 * Request/reply to the services over NATS. A service's failure comes back as its
 * `{name, message, details}`; no replica → ServiceUnavailable; no answer in time → Timeout.
 */
@Injectable()
export class ServiceClient implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ServiceClient.name);
  private nc: NatsConnection | null = null;
  /** False between a disconnect and the reconnect: requests fail fast instead of waiting. */
  private connected = false;
  /**
   * Counts changes of this connection or of the cluster's members (a server gone or back): a
   * request that timed out across one most likely lost its message or its reply with a server.
   */
  private topologyChanges = 0;
  /** The NATS server's max_payload (from its INFO at connect): no message, headers included, may be larger. */
  maxPayload = 1024 * 1024;

  constructor(
    @Inject(ENV) private readonly env: GatewayEnv,
    private readonly nats: NatsConnections,
  ) {}

  async onModuleInit(): Promise<void> {
    this.nc = await this.nats.connection();
    this.connected = true;
    this.members = clusterMembers(this.nc);
    this.membersTimer = setInterval(() => this.noteMembers(), 250);
    this.membersTimer.unref();
    this.maxPayload = this.nc.info?.max_payload ?? this.maxPayload;
    void (async () => {
      for await (const s of this.nc!.status()) {
        if (s.type === 'update' && s.deleted && s.deleted.length > 0) this.topologyChanges++;
        if (s.type === 'disconnect' || s.type === 'reconnect') {
          this.topologyChanges++;
          this.connected = s.type === 'reconnect';
          this.logger.warn(`NATS ${s.type}`);
        }
      }
    })();
  }

  /** One request on a route of NATS_ROUTES; with NATS_CHECK_MESSAGES, the message and the reply are checked against its schemas. */
  async forward<R extends NatsRoute>(route: R, message: RequestOf<R>, requestId: string, timeoutMs = this.env.REQUEST_TIMEOUT_MS): Promise<ReplyOf<R>> {
    if (this.env.NATS_CHECK_MESSAGES) checked(route, 'request', message);
    const reply = await this.request<ReplyOf<R>>(route.subject, message, requestId, timeoutMs);
    if (this.env.NATS_CHECK_MESSAGES) checked(route, 'reply', reply);
    return reply;
  }

  private async request<T>(subject: string, data: unknown, requestId: string, timeoutMs: number): Promise<T> {
    const nc = this.nc;
    if (!nc || nc.isClosed() || !this.connected) throw unavailable(subject);
    const changes = this.noteMembers();
    try {
      return await natsRequest<T>(nc, subject, data, { requestId, timeoutMs, maxPayload: this.maxPayload });
    } catch (err) {
      if (err instanceof ServiceReplyError) throw GatewayError.from(err.payload);
      if (!(err instanceof NatsRequestFailed)) throw err;
      switch (err.kind) {
        case 'too_large':
          // NATS refuses a message over max_payload (a retry never helps): 413, naming both sizes.
          throw new GatewayError(
            ErrorName.PayloadTooLarge,
            `The request is ${err.size!.size} bytes once forwarded to the ${subject.split('.')[0]} service; NATS carries at most ${this.maxPayload} (its max_payload)`,
            err.size,
          );
        case 'timeout':
          // Lost in a failover, not slow: the client may retry (a create with its Idempotency-Key returns the same intent).
          if (this.noteMembers() !== changes) {
            throw unavailable(subject, 'NATS failed over while the request was in flight');
          }
          // No answer and no PONG either: the connection is cut (a partition); it is being replaced.
          if (!(await this.ping(500))) throw unavailable(subject, 'the NATS connection stopped answering');
          throw new GatewayError(ErrorName.Timeout, `The service did not answer within ${timeoutMs} ms`);
        case 'no_responders':
          throw unavailable(subject);
        case 'transport':
          this.logger.warn(`request ${subject} failed: ${err.message}`);
          throw unavailable(subject);
      }
    }
  }

  /** True when the NATS server answers a ping within `timeoutMs`. */
  async ping(timeoutMs: number): Promise<boolean> {
    const nc = this.nc;
    if (!nc || nc.isClosed() || !this.connected) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([nc.flush().then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A plain subscription (for live streams such as the intent events); unsubscribe when done. */
  subscribe(subject: string): Subscription {
    if (!this.nc || this.nc.isClosed()) throw unavailable(subject);
    return this.nc.subscribe(subject);
  }

  /**
   * Counts a change of the cluster's announced members as a topology change (nats.js raises no
   * event for it when every server is listed in NATS_URL); checked every 250 ms and on a timeout,
   * so a node that left and came back within one request's timeout still counts. Returns the count.
   */
  private noteMembers(): number {
    const members = this.nc ? clusterMembers(this.nc) : this.members;
    if (members !== this.members) {
      this.members = members;
      this.topologyChanges++;
    }
    return this.topologyChanges;
  }

  private members = '';
  private membersTimer: NodeJS.Timeout | null = null;

  onModuleDestroy(): void {
    if (this.membersTimer) clearInterval(this.membersTimer);
    this.nc = null; // closed by NatsConnections at shutdown
  }
}

/**
 * The cluster's servers as the connected server last announced them (its INFO's connect_urls,
 * updated when a node leaves or joins): a node that died drops out at once.
 */
function clusterMembers(nc: NatsConnection): string {
  return [...((nc.info as { connect_urls?: string[] } | undefined)?.connect_urls ?? [])].sort().join(',');
}

/** checkRouteMessage, failing loudly: a 500 whose message names the route and every mismatch (tests only: NATS_CHECK_MESSAGES). */
function checked(route: NatsRoute, what: 'request' | 'reply', value: unknown): void {
  try {
    checkRouteMessage(route, what, value);
  } catch (err) {
    new Logger(ServiceClient.name).error((err as Error).message);
    throw new GatewayError(ErrorName.Internal, (err as Error).message);
  }
}

/** Room left in a NATS message for a forwarded body: the envelope `{pattern, data: {body}, id}` and the headers. */
export const NATS_ENVELOPE_BYTES = 1024;

function unavailable(subject: string, why?: string): GatewayError {
  const service = subject.split('.')[0];
  const message = why ? `The ${service} service is unavailable (${why}); retry shortly` : `The ${service} service is unavailable; retry shortly`;
  return new GatewayError(ErrorName.ServiceUnavailable, message, null, { 'retry-after': '1' });
}
