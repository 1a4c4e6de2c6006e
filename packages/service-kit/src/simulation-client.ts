import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeRpcReply, encodeRpcRequest, SIMULATION_SIMULATE, type SimulationResult } from '@tradeinfra/contracts';

export interface SimulationRequest {
  chainId: number;
  /** A block number (decimal or hex) or tag; omitted: the latest block. */
  blockNumber?: string;
  calls: { from: string; to: string | null; data: string; value?: string; gas?: string }[];
  overrides?: { accounts?: Record<string, { balance?: string }> };
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

  async simulate(request: SimulationRequest, timeoutMs = 5_000): Promise<SimulationResult> {
    this.nc ??= connect({ servers: this.natsUrl, name: this.name, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    const nc = await this.nc;
    const msg = await nc.request(SIMULATION_SIMULATE, encodeRpcRequest(SIMULATION_SIMULATE, { body: request }, randomUUID()), { timeout: timeoutMs });
    const reply = decodeRpcReply<SimulationResult>(msg.string());
    if (!reply.ok) throw new Error(`simulation: ${reply.error.name}: ${reply.error.message}`);
    return reply.value;
  }

  async close(): Promise<void> {
    const nc = await this.nc?.catch(() => null);
    this.nc = null;
    await nc?.drain().catch(() => nc.close());
  }
}
