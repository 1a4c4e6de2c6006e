import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { INTENT_EVENTS_STREAM, INTENT_EVENTS_SUBJECTS } from '@tradeinfra/contracts';
import { ensureStream, NatsConnections } from '@tradeinfra/service-kit';
import { ENV, type IntentServiceEnv } from '../config/env.js';

const NANOS_PER_MS = 1_000_000;
/** JetStream drops a message whose Nats-Msg-Id it saw within this window. */
const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;

/** JetStream I/O for intent events: its own connection, reconnecting forever. */
@Injectable()
export class EventsPublisher implements OnModuleInit {
  private readonly logger = new Logger(EventsPublisher.name);
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private streamReady = false;

  constructor(
    @Inject(ENV) private readonly env: IntentServiceEnv,
    private readonly nats: NatsConnections,
  ) {}

  /** Connected (and the stream ensured) before any bootstrap hook runs: the relay and the notifier both need it. */
  async onModuleInit(): Promise<void> {
    this.nc = await this.nats.connection();
    this.js = jetstream(this.nc);
    await this.ensureStream();
  }

  /** Creates the stream if it does not exist (also after a NATS server lost its storage), with NATS_STREAM_REPLICAS replicas. */
  async ensureStream(): Promise<void> {
    const jsm = await jetstreamManager(this.connection());
    const config = {
      name: INTENT_EVENTS_STREAM,
      subjects: [INTENT_EVENTS_SUBJECTS],
      duplicate_window: DUPLICATE_WINDOW_MS * NANOS_PER_MS,
      max_age: this.env.INTENT_EVENTS_MAX_AGE_HOURS * 3600 * 1000 * NANOS_PER_MS,
      num_replicas: this.env.NATS_STREAM_REPLICAS,
    };
    const outcome = await ensureStream(jsm, config);
    if (outcome !== 'unchanged') {
      this.logger.log(`${outcome} JetStream stream ${INTENT_EVENTS_STREAM} (${INTENT_EVENTS_SUBJECTS}, ${config.num_replicas} replica(s))`);
    }
    this.streamReady = true;
  }

  /** Publishes and waits for the stream's ack; `msgId` makes a republish a no-op. */
  async publish(subject: string, payload: unknown, msgId: string): Promise<void> {
    if (!this.streamReady) await this.ensureStream();
    try {
      await this.js!.publish(subject, JSON.stringify(payload), { msgID: msgId, timeout: 2_000 });
    } catch (err) {
      this.streamReady = false;
      throw err;
    }
  }

  /** Last shutdown phase, after the relay has stopped. */

  private connection(): NatsConnection {
    if (!this.nc) throw new Error('EventsPublisher is not connected');
    return this.nc;
  }
}
