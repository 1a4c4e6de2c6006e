import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { NatsModule } from '../nats/nats.module.js';
import { PayoutsController } from './payouts.controller.js';

@Module({
  imports: [AuthModule, NatsModule],
  controllers: [PayoutsController],
})
export class PayoutsModule {}
