import { NATS_ROUTES, type SimulatedCall, type SimulationResult, type StateUpdate } from '@tradeinfra/contracts';
import { ServiceReplyError } from './nats-request.js';
import type { NatsConnections } from './nats-routes.js';

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
  constructor(private readonly nats: NatsConnections) {}

  /** `requestId`: what the simulation service logs the request under (default: a fresh one). */
  async simulate(request: SimulationRequest, timeoutMs = 5_000, requestId?: string): Promise<SimulationResult> {
    try {
      return await this.nats.request(NATS_ROUTES.simulationSimulate, { body: request }, { timeoutMs, requestId });
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
    let result: SimulationResult | undefined;
    try {
      // The service sends the first call once, always before the result (SimulationStreamed).
      await this.nats.requestStream(NATS_ROUTES.simulationSimulateStream, { body: request }, { timeoutMs, requestId }, (value) => {
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

  /** Closes the connection (for a tool or test that made its NatsConnections for this client alone). */
  close(): Promise<void> {
    return this.nats.close();
  }
}
