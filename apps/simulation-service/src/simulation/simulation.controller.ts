import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import {
  REQUEST_ID_HEADER,
  SIMULATION_HEALTH,
  SIMULATION_SIMULATE,
  SIMULATION_SIMULATE_STREAM,
  type HealthReply,
  type SimulatedCall,
  type SimulateMessage,
  type SimulationResult,
  type SimulationStreamed,
} from '@tradeinfra/contracts';
import { ChainRegistry } from '../chain/chain-registry.js';
import { SimulationService } from './simulation.service.js';

@Controller()
export class SimulationController {
  constructor(
    private readonly simulations: SimulationService,
    private readonly chains: ChainRegistry,
  ) {}

  @MessagePattern(SIMULATION_SIMULATE)
  simulate(@Payload() message: SimulateMessage, @Ctx() context: NatsContext): Promise<SimulationResult> {
    return this.simulations.simulate(message, context.getHeaders()?.get(REQUEST_ID_HEADER) || '-');
  }

  /**
   * The same simulation, answered as it goes: the first call's result once final, then the whole
   * result (see SimulationStreamed). The intent service recognises a pending launch on its first
   * call while the token probe behind it still runs.
   */
  @MessagePattern(SIMULATION_SIMULATE_STREAM)
  simulateStream(@Payload() message: SimulateMessage, @Ctx() context: NatsContext): Observable<SimulationStreamed> {
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
  @MessagePattern(SIMULATION_HEALTH)
  async health(): Promise<HealthReply> {
    const chains = await this.chains.health();
    return chains.length > 0 ? { ok: true, chains } : { ok: true };
  }
}
