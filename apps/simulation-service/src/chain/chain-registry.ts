import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ChainHealth } from '@tradeinfra/contracts';
import type { LRUCache } from 'lru-cache';
import { ENV, type SimulationEnv } from '../config/env.js';
import { ChainState, createStateCache } from './chain-state.js';
import { ChainError, ChainErrorCode } from './chain.errors.js';

/** One {@link ChainState} per chain with an RPC configured, all sharing one capped cache. */
@Injectable()
export class ChainRegistry implements OnModuleDestroy {
  private readonly logger = new Logger(ChainRegistry.name);
  private readonly chains = new Map<number, ChainState>();
  readonly cache: LRUCache<string, never>;

  constructor(@Inject(ENV) env: SimulationEnv) {
    const cache = createStateCache(env.SIM_CACHE_MAX_MB * 1024 * 1024);
    this.cache = cache as unknown as LRUCache<string, never>;
    for (const config of env.chains.values()) {
      const endpoints = {
        maxLagBlocks: env.RPC_MAX_LAG_BLOCKS,
        checkIntervalMs: env.RPC_CHECK_INTERVAL_MS,
        checkTimeoutMs: env.RPC_CHECK_TIMEOUT_MS,
        logger: this.logger,
      };
      this.chains.set(config.chainId, new ChainState(config, cache, env.SIM_UPSTREAM_TIMEOUT_MS, env.SIM_RPC_BATCH_MAX, endpoints));
    }
  }

  get ids(): number[] {
    return [...this.chains.keys()].sort((a, b) => a - b);
  }

  get(chainId: number): ChainState {
    const chain = this.chains.get(chainId);
    if (!chain) {
      const known = this.ids.length ? this.ids.join(', ') : 'none';
      throw new ChainError(ChainErrorCode.UnknownChain, `chain ${chainId} has no RPC configured (chains with one: ${known})`);
    }
    return chain;
  }

  /** Each chain's endpoints, for `/health/services`. */
  health(): Promise<ChainHealth[]> {
    return Promise.all([...this.chains].map(async ([chainId, c]) => ({ chainId, endpoints: await c.rpc.checkedStatus() })));
  }

  onModuleDestroy(): void {
    for (const chain of this.chains.values()) chain.rpc.close();
  }

  /** Upstream round trips made so far, per chain (for benchmarks and metrics). */
  roundTrips(): Record<number, number> {
    return Object.fromEntries([...this.chains].map(([id, c]) => [id, c.rpc.roundTrips]));
  }
}
