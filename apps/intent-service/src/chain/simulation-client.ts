import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { NatsSimulationClient } from '@tradeinfra/service-kit';
import { ENV, type IntentServiceEnv } from '../config/env.js';

export type { SimulationRequest } from '@tradeinfra/service-kit';

/** The executor's client of the simulation service (token probes at launch). */
@Injectable()
export class SimulationClient extends NatsSimulationClient implements OnApplicationShutdown {
  constructor(@Inject(ENV) env: IntentServiceEnv) {
    super(env, 'intent-executor');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }
}
