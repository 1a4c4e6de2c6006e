import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { parseInput, SimulateRequestSchema, type SimulateMessage, type SimulatedCall, type SimulationResult } from '@tradeinfra/contracts';
import { ChainRegistry } from '../chain/chain-registry.js';
import { ReadBudget } from '../chain/chain-state.js';
import { ENV, type SimulationEnv } from '../config/env.js';
import { NatsConnections } from '@tradeinfra/service-kit';
import type { SimulationStats } from '../engine/simulator.js';
import { SimulationPool } from '../workers/simulation-pool.js';
import { asSimulationError, SimulationError, SimulationErrorCode } from './simulation.errors.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { ResultCache } from './result-cache.js';

/** What the NATS reply adds around the result (`{"response": …, "isDisposed": true, "id": "<uuid>"}`), with room to spare. */
const REPLY_ENVELOPE_BYTES = 1024;

@Injectable()
export class SimulationService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Simulation');
  private pool: SimulationPool | null = null;
  /** The NATS server's max_payload (read at start): a larger reply would never be delivered. */
  private maxPayload = 1024 * 1024;
  private readonly results: ResultCache;

  constructor(
    private readonly chains: ChainRegistry,
    @Inject(ENV) private readonly env: SimulationEnv,
    @Inject(CLOCK) private readonly now: Clock,
    private readonly nats: NatsConnections,
  ) {
    this.results = new ResultCache(env.SIM_RESULT_CACHE_MB * 1024 * 1024);
  }

  async onModuleInit(): Promise<void> {
    this.maxPayload = (await this.nats.connection()).info?.max_payload ?? this.maxPayload;
    this.pool = new SimulationPool({
      workers: this.env.SIM_WORKERS,
      timeoutMs: this.env.SIM_TIMEOUT_MS,
      killGraceMs: this.env.SIM_KILL_GRACE_MS,
      cacheMb: this.env.SIM_CACHE_MAX_MB,
      now: this.now,
    });
    await this.pool.ready();
    this.logger.log(
      `${this.env.SIM_WORKERS} simulation workers; results up to ${this.maxPayload - REPLY_ENVELOPE_BYTES} bytes (NATS max_payload ${this.maxPayload})`,
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.close();
    this.pool = null;
  }

  /**
   * Validates, then simulates on a worker within SIM_TIMEOUT_MS (a hung upstream, a long bundle
   * or an endless loop ends with 504 `simulation_timeout`) and SIM_MAX_UPSTREAM_READS; a result
   * NATS cannot carry is a 422 `result_too_large`. With LOG_REQUESTS, one line per simulation:
   * its id (the result's `id`), the gateway's request id, the block, the rules, the runs and
   * upstream batches and reads it took.
   */
  async simulate(
    message: SimulateMessage,
    requestId = '-',
    /** Given the first call's result as soon as it is final (simulation.simulate.stream). */
    onFirstCall?: (call: SimulatedCall, blockNumber: bigint) => void,
  ): Promise<SimulationResult> {
    const id = randomUUID();
    const started = performance.now();
    const stats: SimulationStats = { rounds: 0, fetches: 0, callRuns: 0, rules: '-' };
    const budget = new ReadBudget(this.env.SIM_MAX_UPSTREAM_READS);
    let outcome = 'ok';
    let result: SimulationResult | undefined;
    try {
      const request = parseInput(SimulateRequestSchema, message.body);
      const chain = this.chains.get(request.chainId);
      if (!this.pool) throw new Error('the simulation service is not started');
      if (request.blockNumber !== null) {
        result = this.results.get(request, request.blockNumber, id, () => Math.round(performance.now() - started));
        if (result) {
          outcome = 'ok cached';
          if (onFirstCall && result.calls[0]) onFirstCall(result.calls[0], request.blockNumber);
          return result;
        }
      }
      result = await this.pool.run(chain, request, { id, maxCallGas: this.env.SIM_MAX_CALL_GAS, budget, started }, stats, onFirstCall);
      const size = Buffer.byteLength(JSON.stringify(result));
      const limit = this.maxPayload - REPLY_ENVELOPE_BYTES;
      if (size > limit) {
        throw new SimulationError(
          SimulationErrorCode.Unprocessable,
          `The simulation's result is ${size} bytes; at most ${limit} can be sent back (NATS max_payload ${this.maxPayload})`,
          { reason: 'result_too_large', size, limit },
        );
      }
      this.results.set(request, result, size);
      return result;
    } catch (err) {
      // The boundary with the chain layer: its errors (unknown chain or block, upstream, read budget) become the simulation's.
      const error = asSimulationError(err);
      outcome = `failed:${(error as { toPayload?: () => { name: string } }).toPayload?.().name ?? 'InternalError'}`;
      throw error;
    } finally {
      if (this.env.LOG_REQUESTS) {
        const where = result ? ` chain=${result.chainId} block=${BigInt(result.blockNumber)} calls=${result.calls.length}` : '';
        this.logger.log(
          `simulation=${id} request=${requestId}${where} rules=${stats.rules} runs=${stats.rounds} fetches=${stats.fetches} reads=${budget.used}${stats.upstreamMs === undefined ? '' : ` upstream=${stats.upstreamMs.toFixed(1)}ms`} ${outcome} ${(performance.now() - started).toFixed(1)}ms`,
        );
      }
    }
  }
}
