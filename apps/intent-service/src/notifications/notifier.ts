import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerConfig, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { INTENT_EVENTS_STREAM, MAX_NATS_JSON_DEPTH, parsePlainJson, type IntentEvent } from '@tradeinfra/contracts';
import { ensureConsumer, NatsConnections, NATS_TERM_REASON_VERSION, natsVersionAtLeast, requireNatsServerVersion } from '@tradeinfra/service-kit';
import { CLOCK, type Clock } from '../common/clock.js';
import { WebhookClient, WebhookRefused } from '../common/webhook-client.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { EventsPublisher } from '../outbox/events.publisher.js';
import { SigningSecrets } from './signing-secrets.js';

export const NOTIFIER_CONSUMER = 'intent-notifier';
const NANOS_PER_MS = 1_000_000;
const IN_FLIGHT = 32;
const MAX_BACKOFF_MS = 300_000;

/** The notifier consumer's settings that follow the environment (updated on existing consumers). */
export function notifierConsumerLimits(
  env: Pick<IntentServiceEnv, 'NOTIFY_TIMEOUT_MS' | 'NOTIFY_MAX_ATTEMPTS'>,
): Pick<ConsumerConfig, 'ack_wait' | 'max_deliver'> {
  return { ack_wait: (env.NOTIFY_TIMEOUT_MS + 10_000) * NANOS_PER_MS, max_deliver: env.NOTIFY_MAX_ATTEMPTS };
}

/**
 * Delivers every intent status change to the intent's `notificationWebhookUrl`, at least once:
 * a durable JetStream consumer, an HMAC-signed POST per event, redelivery with backoff for
 * NOTIFY_MAX_ATTEMPTS attempts. Receivers dedupe on `x-notification-id` (docs/design/webhooks.md).
 */
@Injectable()
export class Notifier implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Notifier.name);
  private nc: NatsConnection | null = null;
  private messages: ConsumerMessages | null = null;
  private running: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** Whether the server understands `+TERM <reason>` (older ones ignore such an ack entirely). */
  private termReasons = false;

  constructor(
    private readonly secrets: SigningSecrets,
    private readonly publisher: EventsPublisher,
    private readonly webhooks: WebhookClient,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    @Inject(CLOCK) private readonly now: Clock,
    private readonly nats: NatsConnections,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.nc = await this.nats.connection();
    requireNatsServerVersion(this.nc.info?.version, 'intent-service');
    this.termReasons = natsVersionAtLeast(this.nc.info?.version, NATS_TERM_REASON_VERSION);
    await this.publisher.ensureStream();
    const jsm = await jetstreamManager(this.nc);
    const limits = notifierConsumerLimits(this.env);
    const consumerConfig = {
      durable_name: NOTIFIER_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.New,
      max_ack_pending: 5_000,
      num_replicas: this.env.NATS_STREAM_REPLICAS,
      ...limits,
    };
    // A deployment that changed the limits brings the existing consumer up to date.
    if ((await ensureConsumer(jsm, INTENT_EVENTS_STREAM, consumerConfig, ['max_deliver', 'ack_wait'])) === 'updated') {
      this.logger.log(`notifier consumer updated: max_deliver ${limits.max_deliver}, ack_wait ${limits.ack_wait} ns`);
    }
    const consumer = await jetstream(this.nc).consumers.get(INTENT_EVENTS_STREAM, NOTIFIER_CONSUMER);
    this.messages = await consumer.consume({ max_messages: IN_FLIGHT });
    this.running = (async () => {
      for await (const msg of this.messages!) {
        const task = this.handle(msg).finally(() => this.inFlight.delete(task));
        this.inFlight.add(task);
        if (this.inFlight.size >= IN_FLIGHT) await Promise.race(this.inFlight);
      }
    })();
  }

  async onModuleDestroy(): Promise<void> {
    await this.messages?.close().catch(() => undefined);
    await this.running?.catch(() => undefined);
    await Promise.allSettled(this.inFlight);
  }

  /** Ends a message for good (the reason goes with it where the server understands one). */
  private terminate(msg: JsMsg, reason: string): void {
    if (this.termReasons) msg.term(reason.slice(0, 200));
    else msg.term();
  }

  private async handle(msg: JsMsg): Promise<void> {
    let event: IntentEvent;
    try {
      event = parsePlainJson(msg.string(), MAX_NATS_JSON_DEPTH) as IntentEvent;
    } catch {
      this.logger.warn(`event #${msg.seq} is not JSON (or nested too deep): dropped`);
      this.terminate(msg, 'not JSON');
      return;
    }
    const url = event.intent?.notificationWebhookUrl;
    if (!url) {
      msg.ack();
      return;
    }
    const attempt = msg.info.deliveryCount;
    try {
      await this.deliver(url, event);
      msg.ack();
    } catch (err) {
      if (err instanceof WebhookRefused || attempt >= this.env.NOTIFY_MAX_ATTEMPTS) {
        this.logger.warn(`notification ${event.id} for intent ${event.intent.id} given up after ${attempt} attempt(s): ${(err as Error).message}`);
        this.terminate(msg, (err as Error).message);
      } else {
        msg.nak(Math.min(this.env.NOTIFY_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS));
      }
    }
  }

  /** One signed POST; resolves on 2xx. A 3xx is a failed attempt: redirects are not followed. */
  async deliver(url: string, event: IntentEvent): Promise<void> {
    const body = JSON.stringify(event);
    const timestamp = Math.floor(this.now() / 1000);
    const res = await this.webhooks.post(url, {
      timeoutMs: this.env.NOTIFY_TIMEOUT_MS,
      maxBodyBytes: 4 * 1024,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'tradeinfra-notifier/1',
        'x-notification-id': event.id,
        'x-notification-timestamp': String(timestamp),
        'x-notification-signature': await this.secrets.sign(event.tenantId, timestamp, body),
      },
      body,
    });
    if (res.status >= 300 && res.status < 400) throw new Error(`webhook answered ${res.status} (redirects are not followed)`);
    if (res.status < 200 || res.status >= 300) throw new Error(`webhook answered ${res.status}`);
  }
}
