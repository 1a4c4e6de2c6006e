import { Injectable } from '@nestjs/common';
import { NatsConnections, NatsSimulationClient } from '@tradeinfra/service-kit';

export type { SimulationRequest } from '@tradeinfra/service-kit';

/** The executor's client of the simulation service (token probes at launch). */
@Injectable()
export class SimulationClient extends NatsSimulationClient {
  constructor(nats: NatsConnections) {
    super(nats);
  }
}
