import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { INTENT_EVENTS_STREAM, type IntentEvent } from '@tradeinfra/contracts';
import { checkWebhookTarget, WebhookRefused } from '../common/webhook-target.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { EventsPublisher } from '../outbox/events.publisher.js';
import { SigningSecrets } from './signing-secrets.js';

export const NOTIFIER_CONSUMER = 'intent-notifier';
const NANOS_PER_MS = 1_000_000;
const IN_FLIGHT = 32;


/**
 * Delivers every intent status change to the intent's `notificationWebhookUrl`, at least once:
 * a durable JetStream consumer of the outbox's events (shared by the replicas), an HMAC-signed
 * POST per event, ack on 2xx, otherwise redelivery with exponential backoff (1 s … 5 min) up to
 * NOTIFY_MAX_ATTEMPTS. Receivers dedupe on `x-notification-id`.
 */
@Injectable()
export class Notifier implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(Notifier.name);
  private nc: NatsConnection | null = null;
  private messages: ConsumerMessages | null = null;
  private running: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly secrets: SigningSecrets,
    private readonly publisher: EventsPublisher,
    @Inject(ENV) private readonly env: IntentServiceEnv,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.nc = await connect({ servers: this.env.NATS_URL, name: 'intent-notifier', maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    await this.publisher.ensureStream();
    const jsm = await jetstreamManager(this.nc);
    try {
      await jsm.consumers.info(INTENT_EVENTS_STREAM, NOTIFIER_CONSUMER);
    } catch {
      await jsm.consumers.add(INTENT_EVENTS_STREAM, {
        durable_name: NOTIFIER_CONSUMER,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
        ack_wait: (this.env.NOTIFY_TIMEOUT_MS + 10_000) * NANOS_PER_MS,
        max_ack_pending: 5_000,
      });
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

  async onApplicationShutdown(): Promise<void> {
    await this.nc?.drain().catch(() => this.nc?.close());
  }

  private async handle(msg: JsMsg): Promise<void> {
    let event: IntentEvent;
    try {
      event = msg.json<IntentEvent>();
    } catch {
      msg.term('not JSON');
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
        msg.term((err as Error).message.slice(0, 200));
      } else {
        msg.nak(Math.min(1_000 * 2 ** (attempt - 1), 300_000));
      }
    }
  }

  /** One signed POST; resolves on 2xx. */
  async deliver(url: string, event: IntentEvent): Promise<void> {
    const target = new URL(url);
    await checkWebhookTarget(target, this.env);
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await fetch(target, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(this.env.NOTIFY_TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'tradeinfra-notifier/1',
        'x-notification-id': event.id,
        'x-notification-timestamp': String(timestamp),
        'x-notification-signature': this.secrets.sign(event.tenantId, timestamp, body),
      },
      body,
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.status < 200 || res.status >= 300) throw new Error(`webhook answered ${res.status}`);
  }
}
