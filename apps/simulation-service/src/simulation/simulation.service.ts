import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { parseInput, SimulateRequestSchema, type SimulateMessage, type SimulationResult } from '@tradeinfra/contracts';
import { ChainRegistry } from '../chain/chain-registry.js';
import { ENV, type SimulationEnv } from '../config/env.js';
import { simulateBundle, type SimulationStats } from '../engine/simulator.js';
import { SimulationError, SimulationErrorCode } from './simulation.errors.js';

@Injectable()
export class SimulationService {
  private readonly logger = new Logger('Simulation');

  constructor(
    private readonly chains: ChainRegistry,
    @Inject(ENV) private readonly env: SimulationEnv,
  ) {}

  /**
   * Validates, then simulates within SIM_TIMEOUT_MS (a hung upstream or a long bundle ends with
   * an error). With LOG_REQUESTS, one line per simulation: its id (the result's `id`), the
   * gateway's request id, the block, the rules, the runs and upstream batches it took.
   */
  async simulate(message: SimulateMessage, requestId = '-'): Promise<SimulationResult> {
    const id = randomUUID();
    const started = performance.now();
    const stats: SimulationStats = { rounds: 0, fetches: 0, callRuns: 0, rules: '-' };
    let outcome = 'ok';
    let result: SimulationResult | undefined;
    try {
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
        result = await Promise.race([simulateBundle(chain, request, { deadline, maxCallGas: this.env.SIM_MAX_CALL_GAS, id }, stats), expired]);
        return result;
      } finally {
        clearTimeout(timer);
      }
    } catch (err) {
      outcome = `failed:${(err as { toPayload?: () => { name: string } }).toPayload?.().name ?? 'InternalError'}`;
      throw err;
    } finally {
      if (this.env.LOG_REQUESTS) {
        const where = result ? ` chain=${result.chainId} block=${BigInt(result.blockNumber)} calls=${result.calls.length}` : '';
        this.logger.log(
          `simulation=${id} request=${requestId}${where} rules=${stats.rules} runs=${stats.rounds} fetches=${stats.fetches} ${outcome} ${(performance.now() - started).toFixed(1)}ms`,
        );
      }
    }
  }
}
