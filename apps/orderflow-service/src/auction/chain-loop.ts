import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ADVISORY_LOCKS, PeriodicTask } from '@tradeinfra/service-kit';
import { DataSource, type QueryRunner } from 'typeorm';
import { Chains, type Chain } from '../common/chains.js';
import { ENV, type OrderflowServiceEnv } from '../config/env.js';
import { Crediting } from '../capture/crediting.js';
import { Auctioneer } from './auctioneer.js';

/**
 * Each chain's work, every ORDERFLOW_POLL_INTERVAL_MS, by one replica at a time: the replica
 * holding the chain's advisory lock (on a connection of its own; a replica that dies lets it go
 * with its connection) runs the auction rounds, follows inclusions and credits captures. What it
 * decides is written before it acts, so the next leader carries on where it stopped.
 */
@Injectable()
export class ChainLoop implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ChainLoop.name);
  private readonly tasks: PeriodicTask[] = [];
  private readonly leases = new Map<number, QueryRunner>();
  private readonly noBeneficiary = new Set<number>();

  constructor(
    private readonly chains: Chains,
    private readonly auctioneer: Auctioneer,
    private readonly crediting: Crediting,
    @Inject(DataSource) private readonly db: DataSource,
    @Inject(ENV) private readonly env: OrderflowServiceEnv,
  ) {}

  onApplicationBootstrap(): void {
    for (const chain of this.chains.all()) {
      const task = new PeriodicTask(`chain ${chain.config.chainId} loop`, this.env.ORDERFLOW_POLL_INTERVAL_MS, () => this.tick(chain), this.logger);
      this.tasks.push(task);
      task.start();
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.tasks.map((t) => t.stop()));
    // Unlocked before the connection goes back to the pool (a session lock outlives release()).
    for (const [chainId, runner] of this.leases) {
      await runner.query('SELECT pg_advisory_unlock($1, $2)', [ADVISORY_LOCKS.orderflowChain, chainId]).catch(() => undefined);
      await runner.release().catch(() => undefined);
    }
    this.leases.clear();
  }

  /** One pass, when this replica leads the chain. */
  async tick(chain: Chain): Promise<boolean> {
    if (!(await this.lead(chain.config.chainId))) return false;
    const chainId = chain.config.chainId;
    const head = BigInt(await chain.rpc.call<string>('eth_blockNumber'));
    const beneficiary = await this.chains.beneficiary(chainId);
    if (!beneficiary && !this.noBeneficiary.has(chainId)) {
      this.noBeneficiary.add(chainId);
      this.logger.warn(`chain ${chainId}: no beneficiary (ORDERFLOW_BENEFICIARY_${chainId}, or the payout treasury): bids are refused and nothing is credited`);
    }
    await this.auctioneer.run(chain, head, beneficiary);
    if (beneficiary) await this.crediting.creditConfirmed(chain, head, beneficiary);
    await this.crediting.relay();
    return false;
  }

  /** Whether this replica holds the chain's lock (taken when free; a broken lock connection loses it). */
  private async lead(chainId: number): Promise<boolean> {
    const held = this.leases.get(chainId);
    if (held) {
      try {
        await held.query('SELECT 1');
        return true;
      } catch {
        this.leases.delete(chainId);
        await held.release().catch(() => undefined);
        this.logger.warn(`chain ${chainId}: lost the chain's lock (its connection broke)`);
      }
    }
    const runner = this.db.createQueryRunner();
    try {
      await runner.connect();
      const [row] = (await runner.query('SELECT pg_try_advisory_lock($1, $2) AS locked', [ADVISORY_LOCKS.orderflowChain, chainId])) as { locked: boolean }[];
      if (row?.locked) {
        this.leases.set(chainId, runner);
        this.logger.log(`chain ${chainId}: this replica leads the chain's auction`);
        return true;
      }
    } catch (err) {
      this.logger.warn(`chain ${chainId}: could not ask for the chain's lock: ${(err as Error).message}`);
    }
    await runner.release().catch(() => undefined);
    return false;
  }
}
