import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AckPolicy, jetstream, jetstreamManager, type Consumer, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import {
  ContractValidationError,
  JsonTooDeepError,
  MEV_CAPTURE_DLQ_STREAM,
  MEV_CAPTURE_DLQ_SUBJECT,
  MEV_CAPTURE_STREAM,
  MEV_CAPTURE_SUBJECTS,
  type MevCaptureEvent,
  parsePlainJson,
} from '@tradeinfra/contracts';
import {
  CLOCK,
  ensureConsumer,
  NatsConnections,
  type Clock,
  ensureStream,
  NATS_TERM_REASON_VERSION,
  natsVersionAtLeast,
  requireNatsServerVersion,
} from '@tradeinfra/service-kit';
import { ENV, type PayoutServiceEnv } from '../config/env.js';
import { LedgerError } from './ledger.errors.js';
import { LedgerService } from './ledger.service.js';

export const CONSUMER_NAME = 'payout-service';

/**
 * The messages one fetch delivered, and the error it ended with, if any. A fetch can fail after
 * delivering messages (two idle heartbeats missed while the event loop was busy): those must
 * still be applied and acked, not left unacked until `ack_wait` brings them back.
 */
export async function collectFetch<T>(fetch: () => Promise<AsyncIterable<T>>): Promise<{ batch: T[]; error?: unknown }> {
  const batch: T[] = [];
  try {
    for await (const m of await fetch()) batch.push(m);
    return { batch };
  } catch (error) {
    return { batch, error };
  }
}
const NANOS_PER_MS = 1_000_000;

/**
 * The durable JetStream consumer of MEV-capture events, shared by every replica. Each batch
 * is validated, applied in one statement (deduplicated on event id), and only then acked: a
 * crash before the ack means a redelivery, which the dedupe turns into nothing. An invalid
 * event goes to `mev.dlq` with its reason and is terminated, so it never blocks the stream.
 */
@Injectable()
export class MevConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(MevConsumer.name);
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** Whether the server understands `+TERM <reason>` (older ones ignore such an ack entirely). */
  private termReasons = false;
  /** Events applied since start (new entries), for logs and benchmarks. */
  applied = 0;

  constructor(
    private readonly ledger: LedgerService,
    @Inject(ENV) private readonly env: PayoutServiceEnv,
    private readonly nats: NatsConnections,
    @Inject(CLOCK) private readonly now: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.nc = await this.nats.connection();
    requireNatsServerVersion(this.nc.info?.version, 'payout-service');
    this.termReasons = natsVersionAtLeast(this.nc.info?.version, NATS_TERM_REASON_VERSION);
    this.js = jetstream(this.nc);
    const consumer = await this.ensureStreamsAndConsumer();
    this.running = this.loop(consumer);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async ensureStreamsAndConsumer(): Promise<Consumer> {
    const jsm = await jetstreamManager(this.nc!);
    for (const [name, subjects] of [
      [MEV_CAPTURE_STREAM, [MEV_CAPTURE_SUBJECTS]],
      [MEV_CAPTURE_DLQ_STREAM, [MEV_CAPTURE_DLQ_SUBJECT]],
    ] as const) {
      const replicas = this.env.NATS_STREAM_REPLICAS;
      const outcome = await ensureStream(jsm, { name, subjects: [...subjects], duplicate_window: 10 * 60 * 1000 * NANOS_PER_MS, num_replicas: replicas });
      if (outcome !== 'unchanged') this.logger.log(`${outcome} JetStream stream ${name} (${subjects.join(', ')}, ${replicas} replica(s))`);
    }
    await ensureConsumer(jsm, MEV_CAPTURE_STREAM, {
      durable_name: CONSUMER_NAME,
      ack_policy: AckPolicy.Explicit,
      // Short: messages held by a replica that died come back within seconds (dedupe makes a retry harmless).
      ack_wait: 10_000 * NANOS_PER_MS,
      max_ack_pending: 20_000,
      num_replicas: this.env.NATS_STREAM_REPLICAS,
    });
    return this.js!.consumers.get(MEV_CAPTURE_STREAM, CONSUMER_NAME);
  }

  private async loop(consumer: Consumer): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        const { batch, error } = await collectFetch(() => consumer.fetch({ max_messages: this.env.INGEST_BATCH, expires: 1_000 }));
        if (batch.length > 0) await this.handle(batch);
        if (error !== undefined) throw error;
        failures = 0;
      } catch (err) {
        failures++;
        if (failures === 1 || failures % 20 === 0) this.logger.warn(`ingestion paused (${failures}x): ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** Math.min(failures, 5), 3_000)));
      }
    }
  }

  /** Validates, dead-letters the invalid, applies the rest in one statement, then acks. */
  async handle(batch: JsMsg[]): Promise<void> {
    const valid: { msg: JsMsg; event: MevCaptureEvent }[] = [];
    for (const msg of batch) {
      let reason: string;
      try {
        valid.push({ msg, event: this.ledger.validateEvent(parsePlainJson(msg.string())) });
        continue;
      } catch (err) {
        reason =
          err instanceof ContractValidationError || err instanceof LedgerError || err instanceof JsonTooDeepError
            ? err.message
            : `not JSON: ${(err as Error).message}`;
      }
      await this.deadLetter(msg, reason);
    }
    try {
      // In stream order: the first event seen with an id wins (see LedgerService.apply).
      this.applied += await this.ledger.apply(valid.map((v) => v.event));
    } catch (err) {
      for (const v of valid) v.msg.nak(1_000);
      throw err;
    }
    for (const v of valid) v.msg.ack();
  }

  private async deadLetter(msg: JsMsg, reason: string): Promise<void> {
    const h = natsHeaders();
    h.set('x-dlq-reason', reason.slice(0, 1000));
    h.set('x-dlq-subject', msg.subject);
    await this.js!.publish(
      MEV_CAPTURE_DLQ_SUBJECT,
      JSON.stringify({ reason, subject: msg.subject, streamSequence: msg.seq, receivedAt: new Date(this.now()).toISOString(), data: msg.string() }),
      { headers: h, msgID: `dlq-${msg.seq}` },
    );
    // The reason is in the dead letter; older servers ignore a `+TERM <reason>` altogether.
    if (this.termReasons) msg.term(reason.slice(0, 200));
    else msg.term();
    this.logger.warn(`dead-lettered event #${msg.seq}: ${reason}`);
  }
}
