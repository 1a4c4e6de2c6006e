import { Module, type DynamicModule } from '@nestjs/common';
import { AuctionModule } from './auction/auction.module.js';
import { CaptureModule } from './capture/capture.module.js';
import { CommonModule } from './common/common.module.js';
import type { OrderflowServiceEnv } from './config/env.js';
import { IntakeModule } from './intake/intake.module.js';

/** The orderflow service: one module per feature folder, the env, database, chains and NATS in CommonModule. */
@Module({})
export class AppModule {
  static forRoot(env: OrderflowServiceEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [CommonModule.forRoot(env), IntakeModule, CaptureModule, AuctionModule],
    };
  }
}
