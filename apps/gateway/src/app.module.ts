import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@tradeinfra/service-kit';
import { ApiKeysRepository } from './auth/api-keys.repository.js';
import { ApiKeysService } from './auth/api-keys.service.js';
import { AuthGuard } from './auth/auth.guard.js';
import { DashboardController } from './dashboard/dashboard.controller.js';
import { DashboardTokens } from './dashboard/dashboard-tokens.js';
import { createDataSource } from './database/data-source.js';
import { ENV, type GatewayEnv } from './config/env.js';
import { HealthController } from './health/health.controller.js';
import { IntentEventsController } from './intents/intent-events.controller.js';
import { IntentsController } from './intents/intents.controller.js';
import { Metrics } from './metrics/metrics.js';
import { ServiceClient } from './nats/service-client.js';
import { DocsController } from './openapi/docs.controller.js';
import { PayoutsController } from './payouts/payouts.controller.js';
import { SimulationController } from './simulation/simulation.controller.js';

@Module({})
export class AppModule {
  static forRoot(env: GatewayEnv): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [DatabaseModule.forRoot(() => createDataSource(env))],
      controllers: [IntentsController, IntentEventsController, PayoutsController, SimulationController, HealthController, DocsController, DashboardController],
      providers: [{ provide: ENV, useValue: env }, ApiKeysRepository, ApiKeysService, AuthGuard, DashboardTokens, ServiceClient, Metrics],
      exports: [ENV],
    };
  }
}
