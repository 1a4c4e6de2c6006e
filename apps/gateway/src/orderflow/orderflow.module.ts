import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { NatsModule } from '../nats/nats.module.js';
import { FlashbotsSignatureGuard, SearcherLimits } from './flashbots-signature.guard.js';
import { OrderflowController } from './orderflow.controller.js';
import { SourceOwners } from './source-owners.js';

@Module({
  imports: [AuthModule, NatsModule],
  controllers: [OrderflowController],
  providers: [SourceOwners, SearcherLimits, FlashbotsSignatureGuard],
})
export class OrderflowModule {}
