import { type Logger } from '@nestjs/common';
import { readStableLayout, type StableLayout } from '../chain/uniswap-v2.js';
import { type Clock } from '../common/clock.js';
import { type Block } from './buy-judgement.js';
import { type Job } from './buy-terms.js';
import { type ExecutedChain } from './chain-clients.js';
import { MINED_LAUNCH, type EarlyProbes } from './early-probes.js';
import { type ExecutionRepository } from './execution.repository.js';
import { type ClaimedIntent, type LaunchedToken } from './execution.types.js';
import { effectiveTip } from './launch-state.js';
import { type RoundChain } from './round-chain.js';
import { planRound, type Plan } from './round-planner.js';
import { poolClashes, readLaunchPool, readPendingBlock, readSenders, type PendingBlock } from './round-reads.js';
import { probeIntent, type TokenProber } from './token-prober.js';

/** How often, within one head, the waiting senders are looked for again (intents created since). */
const PREFETCH_AGAIN_MS = 250;

/** The chain reads a plan is made of (round-reads.ts, uniswap-v2.ts; tests pass fakes). */
export interface PlanReads {
  launchPool: typeof readLaunchPool;
  senders: typeof readSenders;
  stableLayout: typeof readStableLayout;
  pendingBlock: typeof readPendingBlock;
}

const CHAIN_READS: PlanReads = { launchPool: readLaunchPool, senders: readSenders, stableLayout: readStableLayout, pendingBlock: readPendingBlock };

export interface PlanStepDeps {
  repo: Pick<ExecutionRepository, 'pendingNonces' | 'waitingSenders'>;
  prober: Pick<TokenProber, 'probe'>;
  earlyProbes: Pick<EarlyProbes, 'take'>;
  defaultGasTip: bigint;
  /** At most this many waiting senders read ahead per head (EXECUTION_PREFETCH_SENDERS; 0: none). */
  prefetchSenders: number;
  now: Clock;
  logger: Pick<Logger, 'warn'>;
  reads?: PlanReads;
}

/**
 * Step 2 of a round, plan: reads the launch pool, the token probe (simulation service) and the
 * senders' nonces and balances at the head, then checks every intent against the pool as the
 * earlier buys leave it and builds each buy (round-planner.ts, pure). Touches no row.
 */
export class PlanStep {
  private readonly reads: PlanReads;

  constructor(private readonly deps: PlanStepDeps) {
    this.reads = deps.reads ?? CHAIN_READS;
  }

  /** `pendingAhead`: the node's pending block read as the launch was recognised (a pending launch's round). */
  async plan(chain: RoundChain, launch: LaunchedToken, head: Block, intents: ClaimedIntent[], pendingAhead?: Promise<unknown[] | null>): Promise<Plan> {
    const { config } = chain;
    const headNumber = BigInt(head.number);
    const targetBlock = headNumber + 1n;
    const baseFee = BigInt(head.baseFeePerGas ?? '0x0');
    // Behind a pending launch on a node that gives pending nonces as one block, the buys are
    // numbered without waiting for that block (20–60 ms on hardhat behind a launch); it is
    // checked before anything is settled (poolCheck).
    const numberFirst = pendingAhead !== undefined && (await chain.traits()).pendingNonces === 'block';
    // The senders' nonces and balances do not depend on the pool: read while the pool is.
    const sendersRead = this.reads.senders(
      chain,
      intents,
      headNumber,
      (senders) => this.deps.repo.pendingNonces(config.chainId, senders),
      chain.senders,
      numberFirst ? Promise.resolve([null]) : pendingAhead,
    );
    sendersRead.catch(() => undefined); // awaited below, unless the round stops first
    const launchPool = await this.reads.launchPool(chain, launch, headNumber, await this.stableLayout(chain));
    if (launchPool.reserveNative === 0n || launchPool.reserveToken === 0n) {
      // The launch was undone (reorg) or the liquidity removed since: wait for the next one.
      return { targetBlock, failures: [], jobs: [], release: intents.map((i) => i.id) };
    }
    const probeFor = probeIntent(intents);
    const probeToken = async () => {
      if (!probeFor) return null;
      const early = await this.deps.earlyProbes.take(config.chainId, launch.token, launch.pending?.txHash ?? MINED_LAUNCH, headNumber);
      return early ?? this.deps.prober.probe(config, launch, headNumber, launchPool, probeFor);
    };
    const [probe, state] = await Promise.all([probeToken(), sendersRead]);
    const decided = planRound({
      chain: config,
      wallets: chain.wallets,
      token: launch.token,
      targetBlock,
      baseFee,
      behindLaunch: launch.pending ? { tipCap: chain.submitter.kind === 'rpc' ? effectiveTip(launch.pending.raw, baseFee) : null, pair: launch.pair } : null,
      defaultGasTip: this.deps.defaultGasTip,
      launchPool,
      probe,
      intents,
      state,
      devSignerHolds: (wallet) => chain.devSigner.holds(wallet),
    });
    const poolCheck = numberFirst ? this.clashingBuys(chain, decided.jobs, pendingAhead!) : undefined;
    return { targetBlock, ...decided, release: [], ...(poolCheck ? { poolCheck } : {}) };
  }

  /**
   * Where launches are seen in the mempool, reads the waiting intents' senders' state at `head`
   * in the background (at a new head, and every PREFETCH_AGAIN_MS for intents created since), so
   * a pending launch's round finds it read. A failed read is read again by the round.
   */
  prefetch(chain: RoundChain, head: bigint): void {
    const now = this.deps.now();
    const last = chain.prefetched;
    const most = this.deps.prefetchSenders;
    if (chain.config.mempool === 'off' || most === 0 || head < last.head || (head === last.head && now - last.at < PREFETCH_AGAIN_MS)) return;
    chain.prefetched = { head, at: now };
    const read = async () => {
      const senders = await this.deps.repo.waitingSenders(chain.config.chainId, most, chain.wallets?.relayerAddress ?? null);
      if (senders.length === 0) return;
      const fromBlock = (await chain.traits()).pendingNonces === 'block';
      await Promise.all(chain.senders.read(chain.rpc, head, senders, fromBlock));
    };
    read().catch(() => undefined);
  }

  /** Which side of the stable pair is the native token, and the stable's decimals (read once). */
  private stableLayout(chain: RoundChain): Promise<StableLayout | null> {
    const pair = chain.config.stablePair;
    if (!pair) return Promise.resolve(null);
    chain.stable ??= this.reads
      .stableLayout(chain.rpc, pair, chain.config.wrappedNative, () =>
        this.deps.logger.warn(`STABLE_PAIR_${chain.config.chainId} ${pair} does not hold the wrapped native token: minLiquidity cannot be priced`),
      )
      .catch((err: unknown) => {
        chain.stable = undefined;
        throw err;
      });
    return chain.stable;
  }

  /**
   * The buys that meet a transaction of their sender's in the node's pending block (`pending`:
   * read ahead, or read now when that read failed), with the sender's later buys; every buy when
   * the block cannot be read (nothing goes out on nonces the pool was not checked for).
   */
  private async clashingBuys(chain: Pick<ExecutedChain, 'rpc'>, jobs: Job[], pending: Promise<unknown[] | null>): Promise<Job[]> {
    const first = new Map<string, bigint>();
    for (const { tx } of jobs) if (!first.has(tx.from.toLowerCase())) first.set(tx.from.toLowerCase(), BigInt(tx.nonce));
    if (first.size === 0) return [];
    try {
      const [block] = (await pending) ?? (await this.reads.pendingBlock(chain.rpc));
      const clashes = poolClashes((block ?? null) as PendingBlock | null, first);
      return jobs.filter(({ tx }) => clashes.has(tx.from.toLowerCase()));
    } catch {
      return jobs;
    }
  }
}
