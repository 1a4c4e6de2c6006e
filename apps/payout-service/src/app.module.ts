import { Module, type DynamicModule } from '@nestjs/common';
import { ENV, type PayoutServiceEnv } from './config/env.js';
import { DatabaseModule } from './database/database.module.js';
import { LedgerController } from './ledger/ledger.controller.js';
import { LedgerRepository } from './ledger/ledger.repository.js';
import { LedgerService } from './ledger/ledger.service.js';
import { MevConsumer } from './ledger/mev-consumer.js';
import { PayoutsRepository } from './payouts/payouts.repository.js';
import { PayoutsService } from './payouts/payouts.service.js';

@Module({})
export class AppModule {
  static forRoot(env: PayoutServiceEnv): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [DatabaseModule],
      controllers: [LedgerController],
      providers: [{ provide: ENV, useValue: env }, LedgerRepository, LedgerService, MevConsumer, PayoutsRepository, PayoutsService],
      exports: [ENV],
    };
  }
}
