import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { intentEventSubject, notificationFields, type IntentEvent, type IntentEventType, type IntentRecord } from '@tradeinfra/contracts';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { PeriodicTask } from '../common/periodic-task.js';
import { EventsPublisher } from './events.publisher.js';
import { OutboxRepository, type PendingEvent } from './outbox.repository.js';

const BATCH = 200;

/**
 * Publishes outbox rows to JetStream in insertion order. Runs in every replica; an advisory
 * lock lets one publish at a time. While NATS is unreachable rows stay unpublished and go out,
 * in order, once it is back (each with its event id as Nats-Msg-Id, so a retry is not a dupe).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly task: PeriodicTask;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly publisher: EventsPublisher,
    @Inject(ENV) env: IntentServiceEnv,
  ) {
    this.task = new PeriodicTask('outbox relay', env.OUTBOX_POLL_INTERVAL_MS, () => this.relayOnce(), this.logger);
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  /** First shutdown phase: stop before the NATS connection and the database close. */
  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  /** Something was written to the outbox: publish now rather than at the next poll. */
  wake(): void {
    this.task.wake();
  }

  /** One batch; true when the batch was full (more may be waiting). */
  async relayOnce(): Promise<boolean> {
    const handed = await this.outbox.relayBatch(BATCH, (events) => this.publishAll(events));
    return handed === BATCH;
  }

  /**
   * Publishes the batch, the events of different intents concurrently and each intent's events
   * one after the other: an event that fails (a NATS node lost mid-publish) holds back that
   * intent's later events, so no intent's events ever reach the stream out of order.
   */
  private async publishAll(events: PendingEvent[]): Promise<string[]> {
    const byIntent = new Map<string, PendingEvent[]>();
    for (const e of events) {
      const key = (e.intent as { id?: string } | null)?.id ?? e.id;
      const list = byIntent.get(key);
      if (list) list.push(e);
      else byIntent.set(key, [e]);
    }
    const published: string[] = [];
    let failure: unknown = null;
    await Promise.all(
      [...byIntent.values()].map(async (chain) => {
        for (const e of chain) {
          try {
            await this.publisher.publish(intentEventSubject(e.type), toEvent(e), e.id);
            published.push(e.id);
          } catch (err) {
            failure ??= err;
            return;
          }
        }
      }),
    );
    // Keep what went out; the rest stays in the outbox and the task backs off and retries.
    if (failure !== null && published.length === 0) throw failure;
    return published;
  }
}

/**
 * The notification body: Merkle's fields (`intentId`, `chainId`, `type`, `reason`, `data`), then
 * ours. Built from the outbox row alone (the intent as of the change), so a row written before
 * an upgrade renders the same way. A record from before `statusData` existed reads it as null.
 */
export function toEvent(e: PendingEvent): IntentEvent {
  const intent = e.intent as IntentRecord;
  const event = e.type as IntentEventType;
  const { type, reason, data } = notificationFields(event, { statusReason: intent.statusReason ?? null, statusData: intent.statusData ?? null });
  return {
    id: e.id,
    intentId: intent.id,
    chainId: intent.chainId,
    type,
    reason,
    data,
    event,
    occurredAt: e.createdAt.toISOString(),
    tenantId: e.tenantId,
    intent,
  };
}
