import { Module, type DynamicModule } from '@nestjs/common';
import { CommonModule } from './common/common.module.js';
import type { IntentServiceEnv } from './config/env.js';
import { ExecutionModule } from './execution/execution.module.js';
import { ExitsModule } from './exits/exits.module.js';
import { HealthModule } from './health/health.module.js';
import { IntentsModule } from './intents/intents.module.js';
import { LaunchModule } from './launch/launch.module.js';
import { NotificationsModule } from './notifications/notifications.module.js';
import { OutboxModule } from './outbox/outbox.module.js';
import { TokensModule } from './tokens/tokens.module.js';

/** The intent service: one module per feature folder, the shared pieces in CommonModule. */
@Module({})
export class AppModule {
  static forRoot(env: IntentServiceEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CommonModule.forRoot(env),
        IntentsModule,
        OutboxModule,
        NotificationsModule,
        ExecutionModule,
        ExitsModule,
        LaunchModule,
        TokensModule,
        HealthModule,
      ],
    };
  }
}
