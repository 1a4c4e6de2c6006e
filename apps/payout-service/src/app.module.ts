import { Module, type DynamicModule } from '@nestjs/common';
import { CommonModule } from './common/common.module.js';
import type { PayoutServiceEnv } from './config/env.js';
import { LedgerModule } from './ledger/ledger.module.js';
import { PayoutsModule } from './payouts/payouts.module.js';

/** The payout service: one module per feature folder, the env and database in CommonModule. */
@Module({})
export class AppModule {
  static forRoot(env: PayoutServiceEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [CommonModule.forRoot(env), LedgerModule, PayoutsModule],
    };
  }
}
