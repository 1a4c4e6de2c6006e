import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@tradeinfra/service-kit';
import { createDataSource } from './database/data-source.js';
import { ENV, type IntentServiceEnv } from './config/env.js';
import { HealthController } from './health/health.controller.js';
import { ExpirySweeper } from './intents/expiry.sweeper.js';
import { IntentsController } from './intents/intents.controller.js';
import { IntentsRepository } from './intents/intents.repository.js';
import { CLOCK, IntentsService } from './intents/intents.service.js';
import { WebhookClient } from './common/webhook-client.js';
import { EventsPublisher } from './outbox/events.publisher.js';
import { OutboxRelay } from './outbox/outbox.relay.js';
import { ExecutionRepository } from './execution/execution.repository.js';
import { EXECUTED_CHAINS, executedChains } from './execution/chain-clients.js';
import { Executor } from './execution/executor.js';
import { TokenProber } from './execution/token-prober.js';
import { SimulationClient } from './execution/simulation-client.js';
import { WATCHED_CHAIN_RPCS, watchedChainRpcs } from './launch/chain-rpc.js';
import { LaunchWatcher } from './launch/launch-watcher.js';
import { LaunchesRepository } from './launch/launches.repository.js';
import { PendingLaunchesRepository } from './launch/pending/pending-launches.repository.js';
import { PendingLaunchWatcher } from './launch/pending/pending-launch-watcher.js';
import { NotificationsController } from './notifications/notifications.controller.js';
import { Notifier } from './notifications/notifier.js';
import { SigningSecrets } from './notifications/signing-secrets.js';
import { OutboxRepository } from './outbox/outbox.repository.js';

@Module({})
export class AppModule {
  static forRoot(env: IntentServiceEnv): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [DatabaseModule.forRoot(() => createDataSource(env))],
      controllers: [IntentsController, HealthController, NotificationsController],
      providers: [
        { provide: ENV, useValue: env },
        { provide: CLOCK, useValue: Date.now },
        { provide: WebhookClient, useFactory: (e: IntentServiceEnv) => new WebhookClient(e), inject: [ENV] },
        IntentsRepository,
        IntentsService,
        ExpirySweeper,
        OutboxRepository,
        EventsPublisher,
        OutboxRelay,
        SigningSecrets,
        Notifier,
        ExecutionRepository,
        SimulationClient,
        TokenProber,
        { provide: EXECUTED_CHAINS, useFactory: (e: IntentServiceEnv) => executedChains(e.watchedChains, e.RELAY_AUTH_KEY ?? null), inject: [ENV] },
        Executor,
        { provide: WATCHED_CHAIN_RPCS, useFactory: (e: IntentServiceEnv) => watchedChainRpcs(e.watchedChains), inject: [ENV] },
        LaunchesRepository,
        LaunchWatcher,
        PendingLaunchesRepository,
        PendingLaunchWatcher,
      ],
      exports: [ENV],
    };
  }
}
