import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeRpcReply, encodeRpcRequest, SIMULATION_SIMULATE, type SimulationResult } from '@tradeinfra/contracts';
import { ENV, type IntentServiceEnv } from '../config/env.js';

export interface SimulationRequest {
  chainId: number;
  blockNumber: string;
  calls: { from: string; to: string | null; data: string; value?: string; gas?: string }[];
  overrides?: { accounts?: Record<string, { balance?: string }> };
}

/** The simulation service over NATS request/reply (the same wire format as the gateway's). */
@Injectable()
export class SimulationClient implements OnApplicationShutdown {
  private nc: Promise<NatsConnection> | null = null;

  constructor(@Inject(ENV) private readonly env: IntentServiceEnv) {}

  async simulate(request: SimulationRequest, timeoutMs = 5_000): Promise<SimulationResult> {
    this.nc ??= connect({ servers: this.env.NATS_URL, name: 'intent-executor', maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    const nc = await this.nc;
    const msg = await nc.request(SIMULATION_SIMULATE, encodeRpcRequest(SIMULATION_SIMULATE, { body: request }, randomUUID()), { timeout: timeoutMs });
    const reply = decodeRpcReply<SimulationResult>(msg.string());
    if (!reply.ok) throw new Error(`simulation: ${reply.error.name}: ${reply.error.message}`);
    return reply.value;
  }

  async onApplicationShutdown(): Promise<void> {
    const nc = await this.nc?.catch(() => null);
    await nc?.drain().catch(() => nc.close());
  }
}
