import type { NatsConnection } from '@nats-io/transport-node';
import {
  SIMULATION_SIMULATE,
  SIMULATION_SIMULATE_STREAM,
  type SimulatedCall,
  type SimulationResult,
  type SimulationStreamed,
  type StateUpdate,
} from '@tradeinfra/contracts';
import { connectNats, type NatsEnv } from './nats-connect.js';
import { natsRequest, natsRequestStream, ServiceReplyError } from './nats-request.js';

export interface SimulationRequest {
  chainId: number;
  /** A block number (decimal or hex) or tag; omitted: the latest block. */
  blockNumber?: string;
  /** `overrides` on a call: applied just before it, on top of what the calls before it did. */
  calls: { from: string; to: string | null; data: string; value?: string; gas?: string; overrides?: StateUpdate }[];
  overrides?: StateUpdate;
}

/**
 * The simulation service over NATS request/reply (the gateway's wire format), for services that
 * read chain state through it: the executor's token probes, the payout service's prices.
 */
export class NatsSimulationClient {
  private nc: Promise<NatsConnection> | null = null;

  constructor(
    private readonly nats: NatsEnv,
    private readonly name: string,
  ) {}

  /** `requestId`: what the simulation service logs the request under (default: a fresh one). */
  async simulate(request: SimulationRequest, timeoutMs = 5_000, requestId?: string): Promise<SimulationResult> {
    this.nc ??= connectNats(this.nats, this.name);
    const nc = await this.nc;
    try {
      return await natsRequest<SimulationResult>(nc, SIMULATION_SIMULATE, { body: request }, { timeoutMs, requestId });
    } catch (err) {
      if (err instanceof ServiceReplyError) throw new Error(`simulation: ${err.message}`);
      throw err;
    }
  }

  /**
   * The same simulation, with `onFirstCall` given the first call's result (and the block it ran
   * on, hex) as soon as it is final, while the later calls still run: once, before the answer
   * (with the answer at the latest); not called when the simulation fails before. `onFirstCall`
   * must not throw.
   */
  async simulateStream(
    request: SimulationRequest,
    onFirstCall: (call: SimulatedCall, blockNumber: string) => void,
    timeoutMs = 5_000,
    requestId?: string,
  ): Promise<SimulationResult> {
    this.nc ??= connectNats(this.nats, this.name);
    const nc = await this.nc;
    let result: SimulationResult | undefined;
    try {
      // The service sends the first call once, always before the result (SimulationStreamed).
      await natsRequestStream<SimulationStreamed>(nc, SIMULATION_SIMULATE_STREAM, { body: request }, { timeoutMs, requestId }, (value) => {
        if ('result' in value) {
          result = value.result;
          return true;
        }
        onFirstCall(value.first, value.blockNumber);
        return false;
      });
    } catch (err) {
      if (err instanceof ServiceReplyError) throw new Error(`simulation: ${err.message}`);
      throw err;
    }
    return result!;
  }

  async close(): Promise<void> {
    const nc = await this.nc?.catch(() => null);
    this.nc = null;
    await nc?.drain().catch(() => nc.close());
  }
}
