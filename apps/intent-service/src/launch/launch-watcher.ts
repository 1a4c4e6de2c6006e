import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ENV, type IntentServiceEnv, type WatchedChain } from '../config/env.js';
import { ChainHeads } from '../execution/chain-heads.js';
import { ChainScheduler } from '../execution/chain-scheduler.js';
import { Executor } from '../execution/executor.js';
import { IntentsRepository } from '../intents/intents.repository.js';
import { RpcUnavailable, WATCHED_CHAIN_RPCS, type ChainRpc } from './chain-rpc.js';
import { LaunchDetector } from './launch-detector.js';
import { LaunchesRepository, type ChainLaunches, type StoredBlock } from './launches.repository.js';
import { NewHeads } from './new-heads.js';

export { MINT_TOPIC, PAIR_CREATED_TOPIC, type Launch } from './launch-detector.js';

/** statusReason of a chain's waiting intents while its node cannot be reached. */
export const CHAIN_UNREACHABLE = 'chain_unreachable';

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** A poll's outcome: more blocks wait, the cursor moved, and the newest block stored after it (null: unknown, after a reorg). */
interface Step {
  more: boolean;
  advanced: boolean;
  tip: bigint | null;
}

/**
 * Follows each configured chain block by block (polling every LAUNCH_POLL_INTERVAL_MS, and at
 * once on every head a `WS_URL_<id>` subscription announces) and records the first liquidity of a pending
 * intent's token (launch-detector.ts). The block cursor lives in Postgres (launches.repository.ts),
 * updated in the same transaction as the launches, so a restart resumes where it stopped without
 * missing or repeating a block; the hashes of recent blocks let it step back over a reorg
 * (dropping what it saw in the orphaned blocks). One replica watches a chain at a time (advisory lock).
 */
@Injectable()
export class LaunchWatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LaunchWatcher.name);
  private readonly scheduler: ChainScheduler;
  private readonly subscriptions: NewHeads[] = [];
  private readonly detector = new LaunchDetector();
  /** Per chain, the newest block this replica stored or found stored (committed), while it holds: a poll that finds it still the head reads nothing more. */
  private readonly tips = new Map<number, bigint>();
  /**
   * Chains whose node failed the last poll; at start every chain, so that the first good poll
   * clears a note a replica that has since stopped left behind.
   */
  private readonly unreachable: Set<number>;

  constructor(
    private readonly launches: LaunchesRepository,
    private readonly intents: IntentsRepository,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    private readonly executor: Executor,
    private readonly heads: ChainHeads,
    @Inject(WATCHED_CHAIN_RPCS) rpcs: Map<number, ChainRpc>,
  ) {
    this.unreachable = new Set(env.watchedChains.map((c) => c.chainId));
    this.scheduler = new ChainScheduler('launch watcher', env.LAUNCH_POLL_INTERVAL_MS, this.logger);
    for (const chain of env.watchedChains) {
      const rpc = rpcs.get(chain.chainId)!;
      this.scheduler.add(chain.chainId, () => this.poll(chain, rpc));
      const onHead = (head: bigint) => {
        this.heads.seen(chain.chainId, head);
        this.scheduler.wake(chain.chainId);
      };
      if (chain.wsUrl) this.subscriptions.push(new NewHeads(chain.wsUrl, onHead, this.logger));
    }
  }

  onApplicationBootstrap(): void {
    this.scheduler.start();
    for (const subscription of this.subscriptions) subscription.start();
    if (this.env.watchedChains.length > 0) this.logger.log(`watching chains ${this.env.watchedChains.map((c) => c.chainId).join(', ')} for launches`);
  }

  async onModuleDestroy(): Promise<void> {
    for (const subscription of this.subscriptions) subscription.stop();
    await this.scheduler.stop();
  }

  /**
   * One step; true when more blocks are waiting (or a reorg was just undone). After a step that
   * moved the cursor, the executor runs at once (new launches to act on, buys to follow).
   */
  async poll(chain: WatchedChain, rpc: ChainRpc): Promise<boolean> {
    let result: Step;
    try {
      const head = BigInt(await rpc.call<string>('eth_blockNumber', []));
      this.heads.seen(chain.chainId, head);
      // The head this replica last stored: no new block, nothing to read (and no transaction).
      if (this.tips.get(chain.chainId) === head) result = { more: false, advanced: false, tip: head };
      else
        result = await this.launches.withChain(chain.chainId, { more: false, advanced: false, tip: null }, (launches) => this.step(chain, rpc, launches, head));
    } catch (err) {
      // A failure of the node (HTTP, timeout, refused connection), as opposed to one of the database.
      if (err instanceof RpcUnavailable) await this.noteUnreachable(chain.chainId, true);
      throw err;
    }
    if (result.tip === null) this.tips.delete(chain.chainId);
    else this.tips.set(chain.chainId, result.tip);
    if (this.unreachable.has(chain.chainId)) await this.noteUnreachable(chain.chainId, false);
    if (result.advanced) this.executor.wake(chain.chainId);
    return result.more;
  }

  /**
   * While the chain's node cannot be reached, its waiting intents say so (`statusReason:
   * chain_unreachable`, kept if they expire meanwhile); the note goes when the node answers again.
   */
  private async noteUnreachable(chainId: number, down: boolean): Promise<void> {
    if (down) this.unreachable.add(chainId);
    await this.intents.noteChainReason(chainId, CHAIN_UNREACHABLE, down);
    if (!down) this.unreachable.delete(chainId);
  }

  private async step(chain: WatchedChain, rpc: ChainRpc, launches: ChainLaunches, head: bigint): Promise<Step> {
    const seenAt = new Date();
    const recent = await launches.recentBlocks();
    if (recent.length === 0) {
      await this.remember(launches, rpc, head);
      return { more: false, advanced: true, tip: head };
    }
    const tip = BigInt(recent[0]!.number);
    // No new block: nothing to read. (The newest block replaced by another of the same height is
    // found as the next block comes, as the reorg of any other remembered block is.)
    if (tip === head) return { more: false, advanced: false, tip };
    if (!(await this.canonical(rpc, recent[0]!))) {
      await this.undoReorg(launches, rpc, recent);
      return { more: true, advanced: false, tip: null };
    }
    const from = tip + 1n;
    if (from > head) return { more: false, advanced: false, tip };
    const to = head - from + 1n > BigInt(this.env.LAUNCH_MAX_BLOCK_RANGE) ? from + BigInt(this.env.LAUNCH_MAX_BLOCK_RANGE) - 1n : head;
    const tokens = await launches.awaitedTokens();
    if (tokens.size > 0) {
      for (const launch of await this.detector.detect(chain, rpc, tokens, from, to)) {
        await launches.record(launch, seenAt);
        this.logger.log(`launch on chain ${chain.chainId}: token ${launch.token} (pair ${launch.pair}) in block ${launch.blockNumber}`);
      }
    }
    await this.remember(launches, rpc, to);
    return { more: to < head, advanced: true, tip: to };
  }

  private async canonical(rpc: ChainRpc, block: StoredBlock): Promise<boolean> {
    const onChain = await rpc.call<{ hash: string } | null>('eth_getBlockByNumber', [hex(BigInt(block.number)), false]);
    return onChain?.hash === block.hash;
  }

  /** Steps back to the newest remembered block still on the chain, forgetting what came after. */
  private async undoReorg(launches: ChainLaunches, rpc: ChainRpc, recent: StoredBlock[]): Promise<void> {
    let keep: bigint | null = null;
    for (const block of recent.slice(1)) {
      if (await this.canonical(rpc, block)) {
        keep = BigInt(block.number);
        break;
      }
    }
    const back = keep ?? BigInt(recent[recent.length - 1]!.number) - 1n;
    const undone = await launches.forgetAfter(back);
    if (keep === null) await this.remember(launches, rpc, back);
    this.logger.warn(`reorg on chain ${launches.chainId}: back to block ${back}${undone.length ? `, launches undone: ${undone.join(', ')}` : ''}`);
  }

  private async remember(launches: ChainLaunches, rpc: ChainRpc, number: bigint): Promise<void> {
    const block = await rpc.call<{ hash: string }>('eth_getBlockByNumber', [hex(number), false]);
    await launches.remember(number, block.hash);
  }
}
