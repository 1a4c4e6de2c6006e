import { Module } from '@nestjs/common';
import { LedgerController } from './ledger.controller.js';
import { LedgerRepository } from './ledger.repository.js';
import { LedgerService } from './ledger.service.js';
import { MevConsumer } from './mev-consumer.js';
import { UsdPrices } from './usd-prices.js';

@Module({
  controllers: [LedgerController],
  providers: [LedgerRepository, LedgerService, MevConsumer, UsdPrices],
  exports: [LedgerService, LedgerRepository],
})
export class LedgerModule {}
