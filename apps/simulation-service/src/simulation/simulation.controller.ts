import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import { REQUEST_ID_HEADER, SIMULATION_HEALTH, SIMULATION_SIMULATE, type SimulateMessage, type SimulationResult } from '@tradeinfra/contracts';
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

  @MessagePattern(SIMULATION_HEALTH)
  health(): { ok: true; chains: number[] } {
    return { ok: true, chains: this.chains.ids };
  }
}
