import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { NatsModule } from '../nats/nats.module.js';
import { DashboardController } from './dashboard.controller.js';

/** The dashboard page; its tokens (DashboardTokens) come from AuthModule, which checks them. */
@Module({
  imports: [AuthModule, NatsModule],
  controllers: [DashboardController],
})
export class DashboardModule {}
