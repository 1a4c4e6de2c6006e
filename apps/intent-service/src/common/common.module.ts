import { Global, Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@tradeinfra/service-kit';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { createDataSource } from '../database/data-source.js';
import { ChainNodes } from './chain-nodes.js';
import { CLOCK, systemClock } from './clock.js';
import { WebhookClient } from './webhook-client.js';

/** What every feature uses: the env, the clock, the webhook client, the chains' nodes and the database. */
@Global()
@Module({})
export class CommonModule {
  static forRoot(env: IntentServiceEnv): DynamicModule {
    return {
      module: CommonModule,
      imports: [DatabaseModule.forRoot(() => createDataSource(env))],
      providers: [
        { provide: ENV, useValue: env },
        { provide: CLOCK, useValue: systemClock },
        { provide: WebhookClient, useFactory: (e: IntentServiceEnv) => new WebhookClient(e), inject: [ENV] },
        ChainNodes,
      ],
      exports: [ENV, CLOCK, WebhookClient, ChainNodes],
    };
  }
}
