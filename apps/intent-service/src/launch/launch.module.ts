import { Module } from '@nestjs/common';
import { ChainModule } from '../chain/chain.module.js';
import { ChainNodes } from '../common/chain-nodes.js';
import { ExecutionModule } from '../execution/execution.module.js';
import { IntentsModule } from '../intents/intents.module.js';
import { WATCHED_CHAIN_RPCS, watchedChainRpcs } from '../chain/chain-rpc.js';
import { LaunchWatcher } from './launch-watcher.js';
import { LaunchesRepository } from './launches.repository.js';
import { PendingLaunchWatcher } from './pending/pending-launch-watcher.js';
import { PendingLaunchesRepository } from './pending/pending-launches.repository.js';

/** Launch watching: mined launches (launch-watcher) and pending ones (pending/). */
@Module({
  imports: [ChainModule, IntentsModule, ExecutionModule],
  providers: [
    { provide: WATCHED_CHAIN_RPCS, useFactory: (nodes: ChainNodes) => watchedChainRpcs(nodes), inject: [ChainNodes] },
    LaunchesRepository,
    LaunchWatcher,
    PendingLaunchesRepository,
    PendingLaunchWatcher,
  ],
})
export class LaunchModule {}
