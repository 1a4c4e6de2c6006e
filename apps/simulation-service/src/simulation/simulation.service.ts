import { Inject, Injectable } from '@nestjs/common';
import { parseInput, SimulateRequestSchema, type SimulateMessage, type SimulationResult } from '@tradeinfra/contracts';
import { ChainRegistry } from '../chain/chain-registry.js';
import { ENV, type SimulationEnv } from '../config/env.js';
import { simulateBundle } from '../engine/simulator.js';
import { SimulationError, SimulationErrorCode } from './simulation.errors.js';

@Injectable()
export class SimulationService {
  constructor(
    private readonly chains: ChainRegistry,
    @Inject(ENV) private readonly env: SimulationEnv,
  ) {}

  /** Validates, then simulates within SIM_TIMEOUT_MS (a hung upstream or a long bundle ends with an error). */
  async simulate(message: SimulateMessage): Promise<SimulationResult> {
    const request = parseInput(SimulateRequestSchema, message.body);
    const chain = this.chains.get(request.chainId);
    const deadline = performance.now() + this.env.SIM_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SimulationError(SimulationErrorCode.Timeout, `The simulation did not finish within ${this.env.SIM_TIMEOUT_MS} ms`)),
        this.env.SIM_TIMEOUT_MS + 250,
      );
    });
    try {
      return await Promise.race([simulateBundle(chain, request, { deadline, maxCallGas: this.env.SIM_MAX_CALL_GAS }), expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}
