import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { NatsModule } from '../nats/nats.module.js';
import { ExitsController } from './exits.controller.js';

@Module({
  imports: [AuthModule, NatsModule],
  controllers: [ExitsController],
})
export class ExitsModule {}
