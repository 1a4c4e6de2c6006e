import { Controller } from '@nestjs/common';
import { Ctx, NatsContext } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import {
  NATS_ROUTES,
  REQUEST_ID_HEADER,
  type HealthReply,
  type SimulatedCall,
  type SimulateMessage,
  type SimulationResult,
  type SimulationStreamed,
} from '@tradeinfra/contracts';
import { Handles, RouteMessage } from '@tradeinfra/service-kit';
import { ChainRegistry } from '../chain/chain-registry.js';
import { SimulationService } from './simulation.service.js';

@Controller()
export class SimulationController {
  constructor(
    private readonly simulations: SimulationService,
    private readonly chains: ChainRegistry,
  ) {}

  @Handles(NATS_ROUTES.simulationSimulate)
  simulate(@RouteMessage(NATS_ROUTES.simulationSimulate) message: SimulateMessage, @Ctx() context: NatsContext): Promise<SimulationResult> {
    return this.simulations.simulate(message, context.getHeaders()?.get(REQUEST_ID_HEADER) || '-');
  }

  /**
   * The same simulation, answered as it goes: the first call's result once final, then the whole
   * result (see SimulationStreamed). The intent service recognises a pending launch on its first
   * call while the token probe behind it still runs.
   */
  @Handles(NATS_ROUTES.simulationSimulateStream)
  simulateStream(@RouteMessage(NATS_ROUTES.simulationSimulateStream) message: SimulateMessage, @Ctx() context: NatsContext): Observable<SimulationStreamed> {
    return new Observable<SimulationStreamed>((subscriber) => {
      let done = false;
      const onFirstCall = (first: SimulatedCall, blockNumber: bigint) => {
        if (!done) subscriber.next({ first, blockNumber: `0x${blockNumber.toString(16)}` });
      };
      this.simulations.simulate(message, context.getHeaders()?.get(REQUEST_ID_HEADER) || '-', onFirstCall).then(
        (result) => {
          done = true;
          subscriber.next({ result });
          subscriber.complete();
        },
        (err: unknown) => {
          done = true;
          subscriber.error(err);
        },
      );
    });
  }

  /** Answers while the service runs; with each chain's endpoints (head, lag, state). */
  @Handles(NATS_ROUTES.simulationHealth)
  async health(): Promise<HealthReply> {
    const chains = await this.chains.health();
    return chains.length > 0 ? { ok: true, chains } : { ok: true };
  }
}
