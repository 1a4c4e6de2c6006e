import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ChainHealth } from '@tradeinfra/contracts';
import { ChainRpc } from '@tradeinfra/service-kit';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { WsSender } from '../chain/ws-sender.js';

/**
 * One ChainRpc per watched chain (its `RPC_URL_<id>` endpoints), shared by the launch watchers,
 * the executor and health: each chain's endpoints are checked once per replica, not once per user.
 */
@Injectable()
export class ChainNodes implements OnModuleDestroy {
  private readonly logger = new Logger(ChainNodes.name);
  private readonly rpcs = new Map<number, ChainRpc>();
  private readonly senders = new Map<number, WsSender>();

  constructor(@Inject(ENV) env: IntentServiceEnv) {
    for (const chain of env.watchedChains) {
      const rpc = new ChainRpc(chain.rpcUrls, {
        maxLagBlocks: env.RPC_MAX_LAG_BLOCKS,
        checkIntervalMs: env.RPC_CHECK_INTERVAL_MS,
        checkTimeoutMs: env.RPC_CHECK_TIMEOUT_MS,
        logger: this.logger,
        name: `chain ${chain.chainId}`,
      });
      this.rpcs.set(chain.chainId, rpc);
      // One node, one WebSocket: buys sent one by one go over it. Several nodes: each send goes to all of them over HTTP.
      if (chain.router && chain.relays.length === 0 && chain.rpcUrls.length === 1 && chain.wsUrls.length === 1) {
        this.senders.set(chain.chainId, new WsSender(chain.wsUrls[0]!));
        this.logger.log(`chain ${chain.chainId}: transactions sent one by one go over its WebSocket (HTTP while it is down)`);
      }
    }
  }

  /** The chain's client (a watched chain's: callers iterate the watched chains). */
  get(chainId: number): ChainRpc {
    const rpc = this.rpcs.get(chainId);
    if (!rpc) throw new Error(`chain ${chainId} is not watched`);
    return rpc;
  }

  /** Every watched chain's client, by chain id. */
  all(): Map<number, ChainRpc> {
    return new Map(this.rpcs);
  }

  /** The chain's WebSocket for sending transactions one by one, where it has exactly one node and one WS_URL. */
  sender(chainId: number): WsSender | null {
    return this.senders.get(chainId) ?? null;
  }

  /** Each chain's endpoints, for `/health/services`. */
  async health(): Promise<ChainHealth[]> {
    return Promise.all([...this.rpcs].map(async ([chainId, rpc]) => ({ chainId, endpoints: await rpc.checkedStatus() })));
  }

  onModuleDestroy(): void {
    for (const rpc of this.rpcs.values()) rpc.close();
    for (const sender of this.senders.values()) sender.close();
  }
}
