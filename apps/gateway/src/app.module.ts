import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from './auth/auth.module.js';
import { CommonModule } from './common/common.module.js';
import type { GatewayEnv } from './config/env.js';
import { DashboardModule } from './dashboard/dashboard.module.js';
import { HealthModule } from './health/health.module.js';
import { ExitsModule } from './exits/exits.module.js';
import { IntentsModule } from './intents/intents.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { NatsModule } from './nats/nats.module.js';
import { OrderflowModule } from './orderflow/orderflow.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { PayoutsModule } from './payouts/payouts.module.js';
import { SimulationModule } from './simulation/simulation.module.js';

/** The gateway: one module per feature folder, the env and database in CommonModule. */
@Module({})
export class AppModule {
  static forRoot(env: GatewayEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CommonModule.forRoot(env),
        NatsModule,
        MetricsModule,
        AuthModule,
        IntentsModule,
        ExitsModule,
        PayoutsModule,
        SimulationModule,
        OrderflowModule,
        HealthModule,
        OpenApiModule,
        DashboardModule,
      ],
    };
  }
}
