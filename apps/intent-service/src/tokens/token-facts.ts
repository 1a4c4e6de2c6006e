import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import type { ChainRpc } from '../chain/chain-rpc.js';
import { findDeployer } from './deployer.js';
import { TokensRepository } from './tokens.repository.js';

/** Nest token of the node clients token lookups use (`Map<chainId, ChainRpc>`). */
export const TOKEN_LOOKUP_RPCS = Symbol('TOKEN_LOOKUP_RPCS');

/** How often the tokens of new intents are looked for. */
const INTERVAL_MS = 1_000;
/** Tokens looked up per run. */
const BATCH = 20;
/** Creates wake the lookups at most this often. */
const WAKE_EVERY_MS = 100;

/**
 * Reads who deployed the tokens pending intents name (Merkle's `token.deployer*` of the record)
 * from their chain, soon after the intent is created, off every request's path. A token not
 * deployed yet, or a node that cannot answer for old state, is looked up again less and less
 * often (at most MAX_LOOKUPS times); a token created by a contract keeps null facts.
 */
@Injectable()
export class TokenFacts implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TokenFacts.name);
  private readonly task: PeriodicTask;
  private lastWake = -Infinity;

  constructor(
    private readonly tokens: TokensRepository,
    @Inject(TOKEN_LOOKUP_RPCS) private readonly rpcs: Map<number, ChainRpc>,
    @Inject(ENV) env: IntentServiceEnv,
  ) {
    this.task = new PeriodicTask('token facts', Math.max(INTERVAL_MS, env.LAUNCH_POLL_INTERVAL_MS), () => this.lookUpDue(), this.logger);
  }

  /**
   * Intents were just created: their tokens are looked up now rather than at the next tick, so
   * that a launch right after the create finds the lookup under way (at most one wake per
   * WAKE_EVERY_MS under a stream of creates).
   */
  intentsCreated(): void {
    const now = performance.now();
    if (now - this.lastWake < WAKE_EVERY_MS) return;
    this.lastWake = now;
    this.task.wake();
  }

  onApplicationBootstrap(): void {
    if (this.rpcs.size > 0) this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
  }

  /** One run: looks up the due tokens; true when a full batch was due. */
  async lookUpDue(): Promise<boolean> {
    const due = await this.tokens.due([...this.rpcs.keys()], BATCH);
    for (const { chainId, token } of due) {
      const rpc = this.rpcs.get(chainId)!;
      try {
        const head = BigInt(await rpc.call<string>('eth_blockNumber', []));
        const found = await findDeployer(rpc, token, head);
        await this.tokens.record(chainId, token, typeof found === 'object' ? found.found : null, found === 'none');
      } catch (err) {
        await this.tokens.record(chainId, token, null, false);
        this.logger.debug(`deployer of ${token} on chain ${chainId} not read: ${(err as Error).message}`);
      }
    }
    return due.length === BATCH;
  }
}
