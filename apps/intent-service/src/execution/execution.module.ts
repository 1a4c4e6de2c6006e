import { Module } from '@nestjs/common';
import { ChainNodes } from '../common/chain-nodes.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { IntentsModule } from '../intents/intents.module.js';
import { NotificationsModule } from '../notifications/notifications.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { EXECUTED_CHAINS, executedChains } from './chain-clients.js';
import { ChainModule } from '../chain/chain.module.js';
import { ExecutionRepository } from './execution.repository.js';
import { Executor } from './executor.js';
import { LaunchIntake } from './launch-intake.js';
import { TokenProber } from './token-prober.js';

@Module({
  imports: [ChainModule, IntentsModule, OutboxModule, NotificationsModule],
  providers: [
    ExecutionRepository,
    TokenProber,
    {
      provide: EXECUTED_CHAINS,
      useFactory: (e: IntentServiceEnv, nodes: ChainNodes) => executedChains(e.watchedChains, e.RELAY_AUTH_KEY ?? null, nodes.all(), (id) => nodes.sender(id)),
      inject: [ENV, ChainNodes],
    },
    Executor,
    { provide: LaunchIntake, useExisting: Executor },
  ],
  exports: [LaunchIntake, EXECUTED_CHAINS, ExecutionRepository],
})
export class ExecutionModule {}
