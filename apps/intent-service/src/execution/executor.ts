import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ChainHeads } from '../chain/chain-heads.js';
import { ChainScheduler } from '../chain/chain-scheduler.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { WebhookClient } from '../common/webhook-client.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { IntentsRepository } from '../intents/intents.repository.js';
import { SigningSecrets } from '../notifications/signing-secrets.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { type Block } from './buy-judgement.js';
import { EXECUTED_CHAINS, type ExecutedChain } from './chain-clients.js';
import { ClaimStep, type EarlyClaim } from './claim-step.js';
import { EarlyProbes, MINED_LAUNCH } from './early-probes.js';
import { ExecutionRepository, type LaunchedToken } from './execution.repository.js';
import { FollowStep } from './follow-step.js';
import { type LaunchIntake, type RecognisedLaunch } from './launch-intake.js';
import { PlanStep } from './plan-step.js';
import { readHead, roundChain, type Ahead, type RoundChain } from './round-chain.js';
import { type Plan } from './round-planner.js';
import { readLaunchPool, readPendingBlock } from './round-reads.js';
import { SignStep } from './sign-step.js';
import { WebhookSigner } from './signer.js';
import { SubmitStep } from './submit-step.js';
import { claimableProbeIntent, TokenProber, type ProbeResult } from './token-prober.js';

/** statusReason of a pending intent whose launch round failed for a transient reason (and of one that expired so). */
export const EXECUTION_UNAVAILABLE = 'execution_unavailable';
/** How old the head and pending view read as a launch was recognised may be for its round to use them. */
const AHEAD_MS = 1_000;

/**
 * Executes intents when their token launches, per chain (a ChainScheduler task each, woken on
 * every new block or launch). Each round runs the steps: follow the buys already out, then per
 * launched token claim → plan → sign → submit (one file and spec each, `*-step.ts`).
 * docs/design/execution-rounds.md tells the whole round.
 */
@Injectable()
export class Executor implements LaunchIntake, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Executor.name);
  private readonly chains = new Map<number, RoundChain>();
  private readonly scheduler: ChainScheduler;
  private readonly claims: ClaimStep;
  private readonly planner: PlanStep;
  private readonly signer: SignStep;
  private readonly submitter: SubmitStep;
  private readonly follower: FollowStep;
  private readonly earlyProbes: EarlyProbes;
  /** Per (chain, token), the last transient failure logged (the same one is not logged every round). */
  private readonly lastFailure = new Map<string, string>();

  constructor(
    private readonly repo: ExecutionRepository,
    private readonly intents: IntentsRepository,
    private readonly prober: TokenProber,
    private readonly relay: OutboxRelay,
    private readonly heads: ChainHeads,
    secrets: SigningSecrets,
    webhooks: WebhookClient,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    @Inject(EXECUTED_CHAINS) executed: ExecutedChain[],
    @Inject(CLOCK) private readonly now: Clock,
  ) {
    const webhookSigner = new WebhookSigner({
      timeoutMs: env.SIGNER_TIMEOUT_MS,
      sign: (tenantId, timestamp, body) => secrets.sign(tenantId, timestamp, body),
      client: webhooks,
      now,
    });
    this.earlyProbes = new EarlyProbes(now);
    this.claims = new ClaimStep(intents, env.EXECUTION_BATCH);
    this.planner = new PlanStep({
      repo,
      prober,
      earlyProbes: this.earlyProbes,
      defaultGasTip: BigInt(env.EXECUTION_DEFAULT_GAS_TIP_WEI),
      prefetchSenders: env.EXECUTION_PREFETCH_SENDERS,
      now,
      logger: this.logger,
    });
    this.signer = new SignStep(webhookSigner);
    this.submitter = new SubmitStep(intents, this.logger);
    this.follower = new FollowStep({ intents, relay, logger: this.logger });
    this.scheduler = new ChainScheduler('executor', env.LAUNCH_POLL_INTERVAL_MS, this.logger);
    for (const clients of executed) {
      const chain = roundChain(clients);
      this.chains.set(chain.config.chainId, chain);
      this.scheduler.add(chain.config.chainId, () => this.step(chain));
    }
  }

  onApplicationBootstrap(): void {
    this.scheduler.start();
    for (const chain of this.chains.values()) {
      this.logger.log(
        `executing intents on chain ${chain.config.chainId} through router ${chain.config.router}, submitting with ${chain.submitter.kind === 'bundle' ? `eth_sendBundle to ${chain.config.relays.length} relay(s)` : 'eth_sendRawTransaction'}`,
      );
    }
    for (const config of this.env.watchedChains) {
      if (!config.router) this.logger.warn(`chain ${config.chainId} has no DEX_ROUTER_${config.chainId}: launches are recorded, intents are not executed`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.scheduler.stop();
  }

  whenLaunchesLost(forget: (chainId: number) => Promise<void>): void {
    this.follower.forgetGoneLaunches = forget;
  }

  wake(chainId: number): void {
    this.scheduler.wake(chainId);
  }

  /**
   * The round of a pending launch starts now, on the launch as recognised, while it is stored:
   * the head (and, where the node gives pending nonces as one block, that block) are read now for
   * it (docs/design/pending-launches.md).
   */
  launchSeen(chainId: number, launches: LaunchedToken[], stored: Promise<string[]>): void {
    const chain = this.chains.get(chainId);
    if (!chain) return;
    // A failed read is made again by the round.
    const head = readHead(chain).catch(() => null);
    const live = chain
      .traits()
      .then((t) => (t.pendingNonces === 'block' ? readPendingBlock(chain.rpc) : null))
      .catch(() => null);
    chain.ahead = { at: this.now(), launches, stored, head, live };
    this.wake(chainId);
  }

  /** What launchSeen read for the round starting now, if it is recent enough (null: the round reads its own). */
  private takeAhead(chain: RoundChain): Ahead | null {
    const ahead = chain.ahead;
    chain.ahead = null;
    return ahead && this.now() - ahead.at <= AHEAD_MS ? ahead : null;
  }

  /** The token probe of a pending launch just recognised: `behind`'s, else one made now on the state the launch leaves. */
  probeEarly(chainId: number, launch: RecognisedLaunch, behind: Promise<ProbeResult | null> = Promise.resolve(null)): void {
    const chain = this.chains.get(chainId);
    if (!chain) return;
    const pool = { reserveNative: launch.nativeReserve, reserveToken: launch.tokenReserve, liquidityCents: null };
    const probeNow = async () => {
      const probeFor = await claimableProbeIntent(this.intents, chainId, launch.token);
      if (!probeFor) return null;
      return this.prober.probe(chain.config, { token: launch.token, pair: launch.pair, pending: launch }, launch.headBlock, pool, probeFor);
    };
    const probe = behind.catch(() => null).then((known) => known ?? probeNow());
    this.earlyProbes.put(chainId, launch.token, launch.txHash, launch.headBlock, probe);
  }

  probeMined(chainId: number, launch: Pick<LaunchedToken, 'token' | 'pair'>, head: bigint): void {
    const chain = this.chains.get(chainId);
    if (!chain) return;
    const probe = (async () => {
      const [probeFor, pool] = await Promise.all([claimableProbeIntent(this.intents, chainId, launch.token), readLaunchPool(chain, launch, head, null)]);
      // Nothing to probe with, or no pool (yet) at this head: the round decides.
      if (!probeFor || pool.reserveNative === 0n || pool.reserveToken === 0n) return null;
      return this.prober.probe(chain.config, launch, head, pool, probeFor);
    })();
    this.earlyProbes.put(chainId, launch.token, MINED_LAUNCH, head, probe);
  }

  private async step(chain: RoundChain): Promise<boolean> {
    // Most ticks find no buys to follow and no launch to act on: that is asked without the lock.
    if (!chain.ahead && (await this.idle(chain))) return false;
    // Another replica executing this chain: it has the work; this one checks again next tick.
    return (await this.repo.withChainLock(chain.config.chainId, () => this.stepLocked(chain))) ?? false;
  }

  /** No buys to follow and no launched token with intents (two reads, without the lock); then the senders are read ahead. */
  private async idle(chain: RoundChain): Promise<boolean> {
    const { chainId, mempool } = chain.config;
    const [submitted, launched] = await Promise.all([this.repo.submitted(chainId), this.repo.launchedTokens(chainId, mempool !== 'off')]);
    if (submitted.length > 0 || launched.length > 0) return false;
    const known = this.heads.recent(chainId, 2 * this.env.LAUNCH_POLL_INTERVAL_MS);
    this.planner.prefetch(chain, known ?? BigInt((await readHead(chain)).number));
    return true;
  }

  /** One round under the chain's lock: follow, then each launch recognised or stored. */
  private async stepLocked(chain: RoundChain): Promise<boolean> {
    const ahead = this.takeAhead(chain);
    // Only the lock's holder claims: beside reading the head, following the buys and the launch's store.
    const early = this.claims.early(
      chain.config.chainId,
      (ahead?.launches ?? []).map((l) => l.token),
    );
    const submitted = this.repo.submitted(chain.config.chainId);
    submitted.catch(() => undefined); // the follow step takes the error
    let more = false;
    try {
      const head = (await ahead?.head) ?? (await readHead(chain));
      this.planner.prefetch(chain, BigInt(head.number));
      more = await this.follower.follow(chain, head, submitted);
      // The pending launch just recognised, from memory (its store is awaited before settling).
      for (const launch of ahead?.launches ?? []) {
        more = (await this.execute(chain, launch, head, ahead!.live, early.take(launch.token), ahead!.stored)) || more;
      }
      // Launches stored (or recognised while another step ran: its next step takes them from memory).
      for (const launch of await this.repo.launchedTokens(chain.config.chainId, chain.config.mempool !== 'off')) {
        more = (await this.execute(chain, launch, head, launch.pending ? ahead?.live : undefined, early.take(launch.token))) || more;
      }
    } finally {
      // Claimed for a launch this round did not act on: back to the queue, untouched.
      await early.handBackRest();
    }
    return more;
  }

  /** One launched token's round: claim → plan → sign → submit. True when more of its intents wait. */
  private async execute(
    chain: RoundChain,
    launch: LaunchedToken,
    head: Block,
    pendingAhead?: Promise<unknown[] | null>,
    early?: EarlyClaim,
    /** A launch executed as recognised: the tokens its store recorded (see launchSeen). */
    stored?: Promise<string[]>,
  ): Promise<boolean> {
    const claim = await this.claims.claim(chain.config.chainId, launch.token, early);
    if (claim.intents.length === 0) return false;
    const started = this.now();
    const key = `${chain.config.chainId}:${launch.token}`;
    let plan: Plan;
    try {
      plan = await this.planner.plan(chain, launch, head, claim.intents, pendingAhead);
    } catch (err) {
      // The node or the simulation service failed: nothing was decided, the next round retries.
      await this.claims.release(claim, EXECUTION_UNAVAILABLE);
      const message = (err as Error).message;
      if (this.lastFailure.get(key) !== message) {
        this.lastFailure.set(key, message);
        this.logger.warn(`launch of ${launch.token} on chain ${chain.config.chainId}: ${message}; retrying every round`);
      }
      return false;
    }
    this.lastFailure.delete(key);
    if (stored && !(await stored.then((tokens) => tokens.includes(launch.token.toLowerCase())).catch(() => false))) {
      // Not stored as this launch's: nothing is settled; the stored launch's round decides.
      await this.claims.handBack(claim);
      return true;
    }
    const round = this.submitter.open(chain, claim.claimToken, plan, launch);
    await this.signer.signAll(chain, plan.jobs, plan.targetBlock, launch, (signed) => round.signed(signed));
    const totals = await round.finish();
    // The last buy is with the node or relay: what the latency counts to (backups go after).
    const done = this.now();
    await round.afterSent();
    if (totals.failed > 0 || totals.submitted > 0) this.relay.wake();
    const seen = launch.pending ? 'the launch transaction' : 'the launch block';
    const sinceSeen = launch.seenAt ? ` (${done - launch.seenAt.getTime()} ms after ${seen} was seen)` : '';
    this.logger.log(
      `launch of ${launch.token} on chain ${chain.config.chainId}: ${claim.intents.length} intent(s), ${totals.submitted} submitted for block ${plan.targetBlock}, ${totals.failed} failed, ${totals.deferred} deferred, in ${done - started} ms${sinceSeen}`,
    );
    // Buys deferred behind a nonce gap go again at once; a launch whose pool emptied (a reorg) waits for the next block.
    return claim.intents.length >= this.env.EXECUTION_BATCH || (totals.deferred > 0 && plan.release.length === 0);
  }
}
