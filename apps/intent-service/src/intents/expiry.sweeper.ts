import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { PeriodicTask } from '../common/periodic-task.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { IntentsRepository } from './intents.repository.js';

const BATCH = 500;
const HOUSEKEEPING_EVERY_MS = 60 * 60 * 1000;

/**
 * Expires pending intents past their expiry, every EXPIRY_SWEEP_INTERVAL_MS, in every replica:
 * `FOR UPDATE SKIP LOCKED` plus the `status = 'pending'` condition make each expiry happen once.
 * Also forgets idempotency keys past their TTL and published outbox rows past the stream's age.
 */
@Injectable()
export class ExpirySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ExpirySweeper.name);
  private readonly task: PeriodicTask;
  private lastHousekeeping = 0;

  constructor(
    private readonly intents: IntentsRepository,
    private readonly outbox: OutboxRepository,
    private readonly relay: OutboxRelay,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    @Inject(CLOCK) private readonly now: Clock,
  ) {
    this.task = new PeriodicTask('expiry sweeper', env.EXPIRY_SWEEP_INTERVAL_MS, () => this.sweepOnce(), this.logger);
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  /** First shutdown phase: stop before the NATS connection and the database close. */
  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  async sweepOnce(): Promise<boolean> {
    const expired = await this.intents.expireDue(BATCH);
    if (expired > 0) {
      this.logger.log(`expired ${expired} intent(s)`);
      this.relay.wake();
    }
    const unknown = await this.intents.errorUnfollowed(this.env.EXECUTION_OUTCOME_GRACE_MINUTES, BATCH);
    if (unknown > 0) {
      this.logger.warn(
        `${unknown} submitted buy(s) could not be followed for ${this.env.EXECUTION_OUTCOME_GRACE_MINUTES} min past their expiry: error (outcome_unknown)`,
      );
      this.relay.wake();
    }
    const now = this.now();
    if (now - this.lastHousekeeping > HOUSEKEEPING_EVERY_MS) {
      this.lastHousekeeping = now;
      await this.intents.purgeIdempotencyKeys(this.env.IDEMPOTENCY_TTL_HOURS);
      await this.outbox.purgePublished(this.env.INTENT_EVENTS_MAX_AGE_HOURS);
    }
    return expired === BATCH;
  }
}
