import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { MEV_CAPTURE_STREAM, MEV_CAPTURE_SUBJECTS, NATS_ROUTES, orderflowHintSubject } from '@tradeinfra/contracts';
import { ensureStream, NatsConnections, NatsSimulationClient } from '@tradeinfra/service-kit';
import { ENV, type OrderflowServiceEnv } from '../config/env.js';

const NANOS_PER_MS = 1_000_000;

/**
 * The service's NATS I/O besides its request handlers: hints (core NATS, live), MEV-capture
 * events (JetStream, acked, deduplicated on their id), and requests to the payout service.
 */
@Injectable()
export class NatsIo implements OnModuleInit {
  private readonly logger = new Logger(NatsIo.name);
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private streamReady = false;

  constructor(
    @Inject(ENV) private readonly env: OrderflowServiceEnv,
    private readonly nats: NatsConnections,
  ) {}

  async onModuleInit(): Promise<void> {
    this.nc = await this.nats.connection();
    this.js = jetstream(this.nc);
  }

  /** Sends a hint to every stream listener of its chain (`json`: the SSE event's data). */
  publishHint(chainId: number, json: string): void {
    this.connection().publish(orderflowHintSubject(chainId), json);
  }

  /** Publishes to JetStream and waits for the ack; `msgId` makes a republish a no-op. */
  async publishEvent(subject: string, payload: string, msgId: string): Promise<void> {
    if (!this.streamReady) await this.ensureStream();
    try {
      await this.js!.publish(subject, payload, { msgID: msgId, timeout: 2_000 });
    } catch (err) {
      this.streamReady = false;
      throw err;
    }
  }

  /** The payout treasury's address on `chainId`, or null when the payout service does not settle that chain. */
  async payoutTreasury(chainId: number): Promise<string | null> {
    try {
      const reply = await this.nats.request(NATS_ROUTES.payoutTreasury, { chainId }, { timeoutMs: 2_000 });
      return reply.address;
    } catch {
      return null;
    }
  }

  /** The MEV_CAPTURE stream, as the payout service makes it, when it is not there yet. */
  private async ensureStream(): Promise<void> {
    const jsm = await jetstreamManager(this.connection());
    const replicas = this.env.NATS_STREAM_REPLICAS;
    const config = { name: MEV_CAPTURE_STREAM, subjects: [MEV_CAPTURE_SUBJECTS], duplicate_window: 10 * 60 * 1000 * NANOS_PER_MS, num_replicas: replicas };
    const outcome = await ensureStream(jsm, config);
    if (outcome !== 'unchanged') this.logger.log(`${outcome} JetStream stream ${MEV_CAPTURE_STREAM} (${replicas} replica(s))`);
    this.streamReady = true;
  }

  connection(): NatsConnection {
    if (!this.nc) throw new Error('NatsIo is not connected');
    return this.nc;
  }
}

/** The simulation service, for hints (the transaction alone) and bids (the bundle behind it). */
@Injectable()
export class SimulationClient extends NatsSimulationClient {
  constructor(nats: NatsConnections) {
    super(nats);
  }
}
