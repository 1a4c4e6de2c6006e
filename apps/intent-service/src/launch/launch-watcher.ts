import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock.js';
import { ENV, type IntentServiceEnv, type WatchedChain } from '../config/env.js';
import { ChainHeads } from '../chain/chain-heads.js';
import { ChainScheduler } from '../chain/chain-scheduler.js';
import { LaunchIntake } from '../execution/launch-intake.js';
import { IntentsRepository } from '../intents/intents.repository.js';
import { NodeBehind } from '@tradeinfra/service-kit';
import { RpcUnavailable, WATCHED_CHAIN_RPCS, type ChainRpc } from '../chain/chain-rpc.js';
import { LaunchDetector } from './launch-detector.js';
import { LaunchesRepository, type ChainLaunches } from './launches.repository.js';
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
 * Follows each configured chain block by block (polling, and at once on a `WS_URL_<id>` head)
 * and records the first liquidity of a pending intent's token; the cursor in Postgres survives
 * restarts, reorgs are stepped back over, a node behind is waited for. One replica per chain
 * (docs/design/launch-watching.md, docs/design/chain-endpoints.md).
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
  /** Per chain, what it is waiting for while its node is behind (told once, until it moves on). */
  private readonly waiting = new Map<number, string>();
  /** Chains whose checkpoints are known remembered up to the cursor (checked once per process; see anchor). */
  private readonly anchored = new Set<number>();

  constructor(
    private readonly launches: LaunchesRepository,
    private readonly intents: IntentsRepository,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    private readonly executor: LaunchIntake,
    private readonly heads: ChainHeads,
    @Inject(WATCHED_CHAIN_RPCS) rpcs: Map<number, ChainRpc>,
    @Inject(CLOCK) private readonly now: Clock,
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
      for (const wsUrl of chain.wsUrls) this.subscriptions.push(new NewHeads(wsUrl, onHead, this.logger));
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
    // One endpoint for the whole step: its head, blocks and logs are of one node's chain.
    const node = rpc.pinned();
    let result: Step;
    try {
      const head = BigInt(await node.call<string>('eth_blockNumber', []));
      this.heads.seen(chain.chainId, head);
      // The head this replica last stored: no new block, nothing to read (and no transaction).
      if (this.tips.get(chain.chainId) === head) result = { more: false, advanced: false, tip: head };
      else
        result = await this.launches.withChain(chain.chainId, { more: false, advanced: false, tip: null }, (launches) =>
          this.step(chain, node, launches, head),
        );
    } catch (err) {
      if (err instanceof NodeBehind) {
        // An endpoint of several that has no block below its own head reads no more (until its
        // next check): the step is made again at once on another. Alone, it is waited for.
        if (rpc.demote(node, err.message)) return true;
        this.wait(chain.chainId, err.message);
        return false;
      }
      // A failure of the node (HTTP, timeout, refused connection), as opposed to one of the database.
      if (err instanceof RpcUnavailable) {
        // Another endpoint reads now: the step is made again there at once, the intents unbothered.
        if (rpc.pinned() !== node) return true;
        await this.noteUnreachable(chain.chainId, true);
      }
      throw err;
    }
    if (result.tip === null) this.tips.delete(chain.chainId);
    else this.tips.set(chain.chainId, result.tip);
    if (result.advanced) this.waiting.delete(chain.chainId);
    if (this.unreachable.has(chain.chainId)) await this.noteUnreachable(chain.chainId, false);
    if (result.advanced) this.executor.wake(chain.chainId);
    return result.more;
  }

  /** Tells once (until the chain moves on) that its node is behind and the watcher waits for it. */
  private wait(chainId: number, why: string): void {
    if (this.waiting.get(chainId) === why) return;
    this.waiting.set(chainId, why);
    this.logger.warn(`chain ${chainId}: ${why}; waiting for it`);
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
    const seenAt = new Date(this.now());
    const recent = await launches.recentBlocks();
    if (recent.length === 0) {
      await launches.remember(head, (await this.block(rpc, head)).hash);
      await this.anchor(rpc, launches, head);
      return { more: false, advanced: true, tip: head };
    }
    const tip = BigInt(recent[0]!.number);
    // No new block: nothing to read. (The newest block replaced by another of the same height is
    // found as the next block comes, as the reorg of any other remembered block is.)
    if (tip === head) return { more: false, advanced: false, tip };
    if (head < tip) return this.behind(chain, rpc, launches, head, tip);
    if ((await this.block(rpc, tip)).hash !== recent[0]!.hash) {
      await this.rewind(chain, rpc, launches, head);
      return { more: true, advanced: false, tip: null };
    }
    const from = tip + 1n;
    const to = head - from + 1n > BigInt(this.env.LAUNCH_MAX_BLOCK_RANGE) ? from + BigInt(this.env.LAUNCH_MAX_BLOCK_RANGE) - 1n : head;
    // The checkpoints: all of them once per process, then each power of two the cursor passes.
    const anchoring = !this.anchored.has(chain.chainId);
    if (anchoring || to.toString(2).length > tip.toString(2).length) await this.anchor(rpc, launches, to);
    // Read before the logs: a node that does not have it yet has not got their logs either.
    const last = await this.block(rpc, to);
    const tokens = await launches.awaitedTokens();
    if (tokens.size > 0) {
      for (const launch of await this.detector.detect(chain, rpc, tokens, from, to)) {
        await launches.record(launch, seenAt);
        // Its round will probe the token at the head: that starts now, while the step commits.
        this.executor.probeMined(chain.chainId, launch, head);
        this.logger.log(`launch on chain ${chain.chainId}: token ${launch.token} (pair ${launch.pair}) in block ${launch.blockNumber}`);
      }
    }
    await launches.remember(to, last.hash);
    if (anchoring) this.anchored.add(chain.chainId);
    return { more: to < head, advanced: true, tip: to };
  }

  /** A block the node's head says it has; NodeBehind when it answers none (a node behind the one that gave the head). */
  private async block(rpc: ChainRpc, number: bigint): Promise<{ hash: string }> {
    const block = await rpc.call<{ hash: string } | null>('eth_getBlockByNumber', [hex(number), false]);
    if (!block) throw new NodeBehind(`the node has no block ${number} yet`);
    return block;
  }

  /**
   * The node's head is below the cursor: a node behind (another endpoint, or a load-balanced one)
   * whose blocks are the ones remembered, waited for; or a chain whose blocks are not (it was
   * reset, or reorganised that deep), rewound. The newest remembered block at or below its head
   * says which (a checkpoint at worst: see anchor).
   */
  private async behind(chain: WatchedChain, rpc: ChainRpc, launches: ChainLaunches, head: bigint, tip: bigint): Promise<Step> {
    const [below] = await launches.blocksUpTo(head);
    if (!below) throw new NodeBehind(`the node's head ${head} is below block ${tip} already read, and no block remembered below it tells its chain`);
    if ((await this.block(rpc, BigInt(below.number))).hash === below.hash) {
      this.wait(chain.chainId, `the node's head ${head} is below block ${tip} already read (a node behind)`);
      return { more: false, advanced: false, tip };
    }
    await this.rewind(chain, rpc, launches, head);
    return { more: true, advanced: false, tip: null };
  }

  /**
   * The chain no longer has a remembered block: steps back to the newest remembered block it still
   * has, below its head (one batch for all of them), forgetting the blocks and launches after it,
   * and reads on from there. A chain that has none of them but the genesis block (checkpoints
   * included) was reset: every launch of the chain it replaced is undone, and it is followed from
   * its head.
   */
  private async rewind(chain: WatchedChain, rpc: ChainRpc, launches: ChainLaunches, head: bigint): Promise<void> {
    const chainId = chain.chainId;
    const stored = await launches.blocksUpTo(head);
    const onChain = await rpc.all<{ hash: string } | null>(stored.map((b) => ({ method: 'eth_getBlockByNumber', params: [hex(BigInt(b.number)), false] })));
    if (onChain.some((b) => b === null)) throw new NodeBehind(`the node lacks blocks below its head ${head}`);
    const ancestor = stored.find((b, i) => b.number !== '0' && onChain[i]!.hash === b.hash);
    // The detector's pairs were looked up on the abandoned blocks.
    this.detector.forget(chainId);
    this.anchored.delete(chainId);
    const undone = (tokens: string[]) => (tokens.length > 0 ? `; launches undone: ${tokens.join(', ')}` : '');
    if (ancestor) {
      const tokens = await launches.forgetAfter(BigInt(ancestor.number));
      this.logger.warn(`reorg on chain ${chainId}: back to block ${ancestor.number}, its newest block still on the chain${undone(tokens)}`);
    } else {
      const tokens = await launches.forgetAfter(-1n);
      await launches.remember(head, (await this.block(rpc, head)).hash);
      await this.anchor(rpc, launches, head);
      this.logger.warn(`chain ${chainId} was reset (none of its blocks is one read before): following it from its head ${head}${undone(tokens)}`);
    }
  }

  /** Remembers the chain's checkpoints up to `upTo` not remembered yet (genesis, powers of two: see ChainLaunches.missingCheckpoints). */
  private async anchor(rpc: ChainRpc, launches: ChainLaunches, upTo: bigint): Promise<void> {
    const missing = await launches.missingCheckpoints(upTo);
    if (missing.length === 0) return;
    const blocks = await rpc.all<{ hash: string } | null>(missing.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })));
    for (const [i, n] of missing.entries()) {
      const block = blocks[i];
      if (!block) throw new NodeBehind(`the node has no block ${n} yet`);
      await launches.keep(n, block.hash);
    }
  }
}
