import { Module } from '@nestjs/common';
import { ChainNodes } from '../common/chain-nodes.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { IntentsModule } from '../intents/intents.module.js';
import { NotificationsModule } from '../notifications/notifications.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { EXECUTED_CHAINS, executedChains } from './chain-clients.js';
import { ChainHeads } from './chain-heads.js';
import { ExecutionRepository } from './execution.repository.js';
import { Executor } from './executor.js';
import { SimulationClient } from './simulation-client.js';
import { TokenProber } from './token-prober.js';

@Module({
  imports: [IntentsModule, OutboxModule, NotificationsModule],
  providers: [
    ExecutionRepository,
    ChainHeads,
    SimulationClient,
    TokenProber,
    {
      provide: EXECUTED_CHAINS,
      useFactory: (e: IntentServiceEnv, nodes: ChainNodes) => executedChains(e.watchedChains, e.RELAY_AUTH_KEY ?? null, nodes.all()),
      inject: [ENV, ChainNodes],
    },
    Executor,
  ],
  exports: [Executor, ExecutionRepository, SimulationClient, ChainHeads],
})
export class ExecutionModule {}
