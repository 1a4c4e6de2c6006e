import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@tradeinfra/service-kit';
import { createDataSource } from './database/data-source.js';
import { ENV, type PayoutServiceEnv } from './config/env.js';
import { LedgerController } from './ledger/ledger.controller.js';
import { LedgerRepository } from './ledger/ledger.repository.js';
import { LedgerService } from './ledger/ledger.service.js';
import { MevConsumer } from './ledger/mev-consumer.js';
import { UsdPrices } from './ledger/usd-prices.js';
import { PayoutsController } from './payouts/payouts.controller.js';
import { PayoutsRepository } from './payouts/payouts.repository.js';
import { PayoutsService } from './payouts/payouts.service.js';
import { Settler } from './payouts/settler.js';

@Module({})
export class AppModule {
  static forRoot(env: PayoutServiceEnv): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [DatabaseModule.forRoot(() => createDataSource(env))],
      controllers: [LedgerController, PayoutsController],
      providers: [{ provide: ENV, useValue: env }, LedgerRepository, LedgerService, MevConsumer, PayoutsRepository, PayoutsService, Settler, UsdPrices],
      exports: [ENV],
    };
  }
}
