import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ChainHealth } from '@tradeinfra/contracts';
import { BundleRelays, ChainRpc } from '@tradeinfra/service-kit';
import { ENV, type OrderflowChain, type OrderflowServiceEnv } from '../config/env.js';
import { NatsIo } from './nats-io.js';

/** A chain the service works: its nodes, its relays, where its bids are paid. */
export interface Chain {
  config: OrderflowChain;
  rpc: ChainRpc;
  relays: BundleRelays;
}

/** One ChainRpc and one set of relays per configured chain, and each chain's beneficiary. */
@Injectable()
export class Chains implements OnModuleDestroy {
  private readonly logger = new Logger(Chains.name);
  private readonly chains = new Map<number, Chain>();
  private readonly beneficiaries = new Map<number, string>();

  constructor(
    @Inject(ENV) env: OrderflowServiceEnv,
    private readonly nats: NatsIo,
  ) {
    for (const config of env.chains) {
      const rpc = new ChainRpc(config.rpcUrls, {
        maxLagBlocks: env.RPC_MAX_LAG_BLOCKS,
        checkIntervalMs: env.RPC_CHECK_INTERVAL_MS,
        checkTimeoutMs: env.RPC_CHECK_TIMEOUT_MS,
        logger: this.logger,
        name: `chain ${config.chainId}`,
      });
      this.chains.set(config.chainId, { config, rpc, relays: new BundleRelays(config.relayUrls, env.relayKey) });
      if (config.beneficiary) this.beneficiaries.set(config.chainId, config.beneficiary);
    }
  }

  get(chainId: number): Chain | undefined {
    return this.chains.get(chainId);
  }

  all(): Chain[] {
    return [...this.chains.values()];
  }

  ids(): number[] {
    return [...this.chains.keys()];
  }

  /**
   * Where the chain's bids are paid (lowercase): ORDERFLOW_BENEFICIARY_<id>, else the payout
   * service's treasury of that chain (asked once); null while neither is known.
   */
  async beneficiary(chainId: number): Promise<string | null> {
    const known = this.beneficiaries.get(chainId);
    if (known) return known;
    const treasury = await this.nats.payoutTreasury(chainId).catch(() => null);
    if (treasury) {
      this.beneficiaries.set(chainId, treasury.toLowerCase());
      this.logger.log(`chain ${chainId}: bids are paid to the payout treasury ${treasury}`);
    }
    return treasury?.toLowerCase() ?? null;
  }

  async health(): Promise<ChainHealth[]> {
    return Promise.all(this.all().map(async (c) => ({ chainId: c.config.chainId, endpoints: await c.rpc.checkedStatus() })));
  }

  onModuleDestroy(): void {
    for (const c of this.chains.values()) c.rpc.close();
  }
}
