import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module.js';
import { PayoutsController } from './payouts.controller.js';
import { PayoutsRepository } from './payouts.repository.js';
import { PayoutsService } from './payouts.service.js';
import { Settler } from './settler.js';

@Module({
  imports: [LedgerModule],
  controllers: [PayoutsController],
  providers: [PayoutsRepository, PayoutsService, Settler],
})
export class PayoutsModule {}
