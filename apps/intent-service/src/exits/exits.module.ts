import { Module } from '@nestjs/common';
import { ChainModule } from '../chain/chain.module.js';
import { ExecutionModule } from '../execution/execution.module.js';
import { IntentsModule } from '../intents/intents.module.js';
import { NotificationsModule } from '../notifications/notifications.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { ExitWatcher } from './exit-watcher.js';
import { ExitsController } from './exits.controller.js';
import { ExitsRepository } from './exits.repository.js';
import { ExitsService } from './exits.service.js';

/** Exit intents: created here (`exit.create`), read and cancelled as intents, fired by the ExitWatcher. */
@Module({
  imports: [ChainModule, ExecutionModule, IntentsModule, OutboxModule, NotificationsModule],
  controllers: [ExitsController],
  providers: [ExitsRepository, ExitsService, ExitWatcher],
  exports: [ExitWatcher],
})
export class ExitsModule {}
