import { Module } from '@nestjs/common';
import { IntakeController } from './intake.controller.js';
import { IntakeService } from './intake.service.js';
import { PrivateTxsRepository } from './private-txs.repository.js';

/** Wallets' JSON-RPC: private transactions in, reads forwarded. */
@Module({
  controllers: [IntakeController],
  providers: [IntakeService, PrivateTxsRepository],
  exports: [PrivateTxsRepository],
})
export class IntakeModule {}
