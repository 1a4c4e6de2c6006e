import { connect, type NatsConnection } from '@nats-io/transport-node';
import { SIMULATION_SIMULATE, type SimulationResult, type StateUpdate } from '@tradeinfra/contracts';
import { natsRequest, ServiceReplyError } from './nats-request.js';

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
    private readonly natsUrl: string,
    private readonly name: string,
  ) {}

  /** `requestId`: what the simulation service logs the request under (default: a fresh one). */
  async simulate(request: SimulationRequest, timeoutMs = 5_000, requestId?: string): Promise<SimulationResult> {
    this.nc ??= connect({ servers: this.natsUrl, name: this.name, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    const nc = await this.nc;
    try {
      return await natsRequest<SimulationResult>(nc, SIMULATION_SIMULATE, { body: request }, { timeoutMs, requestId });
    } catch (err) {
      if (err instanceof ServiceReplyError) throw new Error(`simulation: ${err.message}`);
      throw err;
    }
  }

  async close(): Promise<void> {
    const nc = await this.nc?.catch(() => null);
    this.nc = null;
    await nc?.drain().catch(() => nc.close());
  }
}
