import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { WebhookClient } from '../common/webhook-client.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { IntentsRepository } from '../intents/intents.repository.js';
import { SigningSecrets } from '../notifications/signing-secrets.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { followSubmitted, planResends, type Block } from './buy-follower.js';
import { EXECUTED_CHAINS, type ExecutedChain } from './chain-clients.js';
import { ChainHeads } from './chain-heads.js';
import { ChainScheduler } from './chain-scheduler.js';
import { ExecutionRepository, type ClaimedIntent, type LaunchedToken, type SubmittedIntent } from './execution.repository.js';
import { planRound, type Job, type Plan } from './round-planner.js';
import { poolClashes, readLaunchPool, readPendingBlock, readSenders, SenderHeads, type PendingBlock } from './round-reads.js';
import { signingUnits, WebhookSigner, type SignJob, type SigningUnit, type SignResult } from './signer.js';
import { mapLimit, SubmissionPipeline } from './submission-pipeline.js';
import { claimableProbeIntent, probeIntent, TokenProber, type ProbeResult } from './token-prober.js';
import { readStableLayout, type StableLayout } from './uniswap-v2.js';
import { effectiveTip } from './launch-state.js';
import type { StateUpdate } from '@tradeinfra/contracts';

/** statusReason of a pending intent whose launch round failed for a transient reason (and of one that expired so). */
export const EXECUTION_UNAVAILABLE = 'execution_unavailable';
/** Signing requests (a buy, or a batching webhook's buys) in flight at once per round. */
const SIGNING_CONCURRENCY = 256;
/** How often, within one head, the waiting senders are looked for again (intents created since). */
const PREFETCH_AGAIN_MS = 250;
/** How long an early probe waits for its round (a launch whose round never came: its head moved on). */
const EARLY_PROBE_TTL_MS = 60_000;
/** How old the head and pending view read as a launch was recognised may be for its round to use them. */
const AHEAD_MS = 1_000;

/** A pending launch as it is recognised: what its early probe needs. */
export interface RecognisedLaunch {
  token: string;
  pair: string;
  txHash: string;
  /** The head the launch transaction was simulated on. */
  headBlock: bigint;
  stateAfter: StateUpdate;
  tokenReserve: bigint;
  nativeReserve: bigint;
}

/** A chain's executor state between rounds. */
interface Chain extends ExecutedChain {
  /** The head at which waiting buys were last sent again (once per new block). */
  resentAt: bigint;
  /** The stable pair's layout, read once: which side is native, the stable's decimals. */
  stable?: Promise<StableLayout | null>;
  /** The senders' state at the newest head (read once per head). */
  senders: SenderHeads;
  /** The head whose waiting senders were last read ahead of a round, and when (ms). */
  prefetched: { head: bigint; at: number };
  /** The head and the node's pending view, read as a pending launch was recognised, for that launch's round (see launchSeen). */
  ahead: Ahead | null;
}

/** What a pending launch's round can start on before it finds the launch stored (see launchSeen). */
interface Ahead {
  at: number;
  /** The launched tokens, as recognised: executed from memory once their store says they are this launch's. */
  launches: LaunchedToken[];
  /** The tokens (lowercase) the store recorded for this launch (another launch already stored for a token: not this one's). */
  stored: Promise<string[]>;
  head: Promise<Block | null>;
  live: Promise<unknown[] | null>;
}

/** A claim made before the round found its launch (see stepLocked). */
interface EarlyClaim {
  claimToken: string;
  intents: Promise<ClaimedIntent[]>;
}

/**
 * Executes intents when their token launches, per chain (a ChainScheduler task each, woken by
 * the launch watcher on every new block):
 *
 * 1. **Follow** the buys already submitted (buy-follower.ts): mined → `completed` (or
 *    `failed`/`reverted`); not in the target block with firstOrFail → `failed`/`not_included`;
 *    past expiry → `expired`; otherwise send again for the next block.
 * 2. **Execute** launched tokens: claim their waiting intents (highest bribe first; a claim is a
 *    row lease, so replicas share the work and a dead replica's claims lapse), probe the token
 *    once with the simulation service (token-prober.ts), check every intent against the pool as
 *    the earlier buys leave it and build each buy (round-planner.ts), have it signed (webhook or
 *    development signer) and verified, mark the signed buys submitted (only those still pending:
 *    a cancel or expiry that came first wins), and send them (submission-pipeline.ts).
 *
 * The chains' clients (node, submitter, signers) are injected (`EXECUTED_CHAINS`).
 */
@Injectable()
export class Executor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Executor.name);
  private readonly chains = new Map<number, Chain>();
  private readonly scheduler: ChainScheduler;
  private readonly webhookSigner: WebhookSigner;
  /** Per (chain, token), the last transient failure logged (the same one is not logged every round). */
  private readonly lastFailure = new Map<string, string>();
  /** Probes of pending launches started as they were recognised, by (chain, token, launch transaction, head). */
  private readonly earlyProbes = new Map<string, { at: number; probe: Promise<ProbeResult | null> }>();
  /** Forgets the chain's pending launches that are no longer pending (set by the pending-launch watcher). */
  private forgetGoneLaunches: (chainId: number) => Promise<void> = () => Promise.resolve();

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
  ) {
    this.webhookSigner = new WebhookSigner({
      timeoutMs: env.SIGNER_TIMEOUT_MS,
      sign: (tenantId, timestamp, body) => secrets.sign(tenantId, timestamp, body),
      client: webhooks,
    });
    this.scheduler = new ChainScheduler('executor', env.LAUNCH_POLL_INTERVAL_MS, this.logger);
    for (const clients of executed) {
      const chain: Chain = {
        ...clients,
        resentAt: -1n,
        senders: new SenderHeads(),
        prefetched: { head: -1n, at: 0 },
        ahead: null,
      };
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

  /**
   * How to forget a chain's pending launches that are gone (dropped, replaced, reverted): called
   * when buys sent behind one are found to have missed it, before the round reads its launches,
   * so no round sends buys behind a launch that will not come.
   */
  whenLaunchesLost(forget: (chainId: number) => Promise<void>): void {
    this.forgetGoneLaunches = forget;
  }

  /** A new block or launch on the chain: act now rather than at the next tick. */
  wake(chainId: number): void {
    this.scheduler.wake(chainId);
  }

  /**
   * A pending launch was just recognised and is being stored (`stored`: the tokens it recorded):
   * its round starts now, on the launch as recognised (`launches`), not on the stored row. It
   * takes the chain's lock, claims the launched tokens' intents and follows the buys out while
   * the launch is stored, checks and has the buys signed, and waits for the store only before
   * it settles anything: a token the store did not record as this launch's (another launch of it
   * stored first, or the store failed) is handed back untouched, for the stored launch's round.
   * The head is read now, and where the node gives pending nonces as one pending block (hardhat,
   * which builds that block on each read: ~20 ms behind a launch, and a head's read waits behind
   * it) that block too; the round uses them if it starts within AHEAD_MS (a block or a sender's
   * transaction that comes after these reads is as unseen as one that comes after the round's
   * own). Read earlier (as the candidate is simulated), the pending block would take the node's
   * time from the simulation's reads.
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
    chain.ahead = { at: Date.now(), launches, stored, head, live };
    this.wake(chainId);
  }

  /** What launchSeen read for the round starting now, if it is recent enough (null: the round reads its own). */
  private takeAhead(chain: Chain): Ahead | null {
    const ahead = chain.ahead;
    chain.ahead = null;
    return ahead && Date.now() - ahead.at <= AHEAD_MS ? ahead : null;
  }

  /**
   * A pending launch was just recognised (after launchSeen): its token probe, for its round to use
   * when its head is the one the launch was simulated on (else, or when this one failed, it probes
   * again). `behind`: the probe made right behind the launch in the launch's own simulation (still
   * running); where it gives none, the token is probed now, on the state the launch leaves and
   * with the amount of the first intent a claim would take, while the launch is stored and its
   * round locks the chain and claims.
   */
  probeEarly(chainId: number, launch: RecognisedLaunch, behind: Promise<ProbeResult | null> = Promise.resolve(null)): void {
    const chain = this.chains.get(chainId);
    if (!chain) return;
    const now = Date.now();
    for (const [key, early] of this.earlyProbes) if (now - early.at > EARLY_PROBE_TTL_MS) this.earlyProbes.delete(key);
    const pool = { reserveNative: launch.nativeReserve, reserveToken: launch.tokenReserve, liquidityCents: null };
    const probeNow = async () => {
      const probeFor = await claimableProbeIntent(this.intents, chainId, launch.token);
      if (!probeFor) return null;
      return this.prober.probe(chain.config, { token: launch.token, pair: launch.pair, pending: launch }, launch.headBlock, pool, probeFor);
    };
    const probe = behind.catch(() => null).then((known) => known ?? probeNow());
    probe.catch(() => undefined); // the round probes again
    this.earlyProbes.set(earlyKey(chainId, launch.token, launch.txHash, launch.headBlock), { at: now, probe });
  }

  /** The early probe of this launch at this head, once (null: none, or it failed or found nothing to probe with). */
  private async earlyProbe(chainId: number, token: string, txHash: string, head: bigint): Promise<ProbeResult | null> {
    const key = earlyKey(chainId, token, txHash, head);
    const early = this.earlyProbes.get(key);
    if (!early) return null;
    this.earlyProbes.delete(key);
    return early.probe.catch(() => null);
  }

  private async step(chain: Chain): Promise<boolean> {
    // Most ticks find no buys to follow and no launch to act on: that is asked without the lock.
    if (!chain.ahead && (await this.idle(chain))) return false;
    // Another replica executing this chain: it has the work; this one checks again next tick.
    return (await this.repo.withChainLock(chain.config.chainId, () => this.stepLocked(chain))) ?? false;
  }

  /**
   * Whether the chain has no buys to follow and no launched token with intents to execute (two
   * reads, without the chain's lock). When so, the senders are read ahead at the head the launch
   * watcher saw last (the node is asked for it only when the watcher has seen none lately).
   */
  private async idle(chain: Chain): Promise<boolean> {
    const { chainId, mempool } = chain.config;
    const [submitted, launched] = await Promise.all([this.repo.submitted(chainId), this.repo.launchedTokens(chainId, mempool !== 'off')]);
    if (submitted.length > 0 || launched.length > 0) return false;
    const known = this.heads.recent(chainId, 2 * this.env.LAUNCH_POLL_INTERVAL_MS);
    this.prefetchSenders(chain, known ?? BigInt((await readHead(chain)).number));
    return true;
  }

  private async stepLocked(chain: Chain): Promise<boolean> {
    const ahead = this.takeAhead(chain);
    // Under the lock (only its holder claims), beside reading the head, following the buys out and the launch's store.
    const early = new Map<string, EarlyClaim>();
    for (const { token } of ahead?.launches ?? []) {
      const claimToken = randomUUID();
      const intents = this.intents.claim(chain.config.chainId, token, claimToken, this.env.EXECUTION_BATCH);
      intents.catch(() => undefined); // the round that takes it sees the error
      early.set(token.toLowerCase(), { claimToken, intents });
    }
    /** The early claim of a launch's token, once (the launch stored and the one recognised are the same launch). */
    const claimOf = (launch: LaunchedToken) => {
      const claimed = early.get(launch.token.toLowerCase());
      early.delete(launch.token.toLowerCase());
      return claimed;
    };
    // The buys to follow are read beside the head too.
    const submitted = this.repo.submitted(chain.config.chainId);
    submitted.catch(() => undefined); // follow() takes the error
    let more = false;
    try {
      const head = (await ahead?.head) ?? (await readHead(chain));
      this.prefetchSenders(chain, BigInt(head.number));
      more = await this.follow(chain, head, submitted);
      // The pending launch just recognised, from memory (its store is awaited before settling).
      for (const launch of ahead?.launches ?? []) {
        more = (await this.execute(chain, launch, head, ahead!.live, claimOf(launch), ahead!.stored)) || more;
      }
      // Launches stored (or recognised while another step ran: its next step takes them from memory).
      for (const launch of await this.repo.launchedTokens(chain.config.chainId, chain.config.mempool !== 'off')) {
        more = (await this.execute(chain, launch, head, launch.pending ? ahead?.live : undefined, claimOf(launch))) || more;
      }
    } finally {
      // Claimed for a launch this round did not act on: back to the queue, untouched.
      for (const { claimToken, intents } of early.values()) {
        const ids = (await intents.catch(() => [])).map((i) => i.id);
        if (ids.length > 0) await this.intents.handBack(claimToken, ids);
      }
    }
    return more;
  }

  /** `reading`: the buys submitted, as being read. True when intents wait again (their token may be executed at once). */
  private async follow(chain: Chain, head: Block, reading: Promise<SubmittedIntent[]>): Promise<boolean> {
    const submitted = await reading;
    if (submitted.length === 0) return false;
    let waitedAgain = false;
    const { outcomes, waitAgain, resend } = await followSubmitted(chain, submitted, head);
    if (outcomes.length > 0) {
      const changed = await this.intents.recordOutcomes(outcomes);
      if (changed > 0) this.relay.wake();
      for (const o of outcomes) this.logger.log(`intent ${o.id}: ${o.status}${o.reason ? ` (${o.reason})` : ''}`);
    }
    if (waitAgain.length > 0 && (await this.intents.waitAgain(waitAgain)) > 0) {
      this.relay.wake();
      await this.forgetGoneLaunches(chain.config.chainId);
      for (const w of waitAgain)
        this.logger.warn(`intent ${w.id}: waiting again (${w.reason}): launch ${w.launchTxHash} never came before its buy ${w.txHash}`);
      waitedAgain = true;
    }
    const headNumber = BigInt(head.number);
    if (resend.length > 0 && headNumber > chain.resentAt) {
      // A block came without them: send again for the next one (a node that has them ignores
      // it); behind their launch while it is still pending, with backups (buy-follower.ts).
      chain.resentAt = headNumber;
      for (const r of planResends(resend, headNumber, chain.submitter.kind === 'bundle')) {
        await chain.submitter.submit(r.submissions, r.targetBlock, r.behind);
      }
    }
    return waitedAgain;
  }

  /**
   * Where launches are seen in the mempool, reads the waiting intents' senders' state at the
   * head in the background (at most EXECUTION_PREFETCH_SENDERS of them; at a new head, and every
   * PREFETCH_AGAIN_MS for senders of intents created since), so a pending launch's round finds
   * it read rather than reading it on its own path.
   */
  private prefetchSenders(chain: Chain, head: bigint): void {
    const now = Date.now();
    const last = chain.prefetched;
    const most = this.env.EXECUTION_PREFETCH_SENDERS;
    if (chain.config.mempool === 'off' || most === 0 || head < last.head || (head === last.head && now - last.at < PREFETCH_AGAIN_MS)) return;
    chain.prefetched = { head, at: now };
    const read = async () => {
      const senders = await this.repo.waitingSenders(chain.config.chainId, most, chain.wallets?.relayerAddress ?? null);
      if (senders.length === 0) return;
      const fromBlock = (await chain.traits()).pendingNonces === 'block';
      await Promise.all(chain.senders.read(chain.rpc, head, senders, fromBlock));
    };
    // A failed read is read again by the round that needs it.
    read().catch(() => undefined);
  }

  /** One round for one launched token; true when more of its intents wait. */
  private async execute(
    chain: Chain,
    launch: LaunchedToken,
    head: Block,
    pendingAhead?: Promise<unknown[] | null>,
    claimed?: EarlyClaim,
    /** A launch executed as recognised: the tokens its store recorded (see launchSeen). */
    stored?: Promise<string[]>,
  ): Promise<boolean> {
    const claimToken = claimed?.claimToken ?? randomUUID();
    const intents = await (claimed?.intents ?? this.intents.claim(chain.config.chainId, launch.token, claimToken, this.env.EXECUTION_BATCH));
    if (intents.length === 0) return false;
    const started = Date.now();
    const key = `${chain.config.chainId}:${launch.token}`;
    let plan: Plan;
    try {
      plan = await this.plan(chain, launch, head, intents, pendingAhead);
    } catch (err) {
      // The node or the simulation service failed: nothing was decided, the next round retries.
      await this.intents.release(
        claimToken,
        intents.map((i) => i.id),
        EXECUTION_UNAVAILABLE,
      );
      const message = (err as Error).message;
      if (this.lastFailure.get(key) !== message) {
        this.lastFailure.set(key, message);
        this.logger.warn(`launch of ${launch.token} on chain ${chain.config.chainId}: ${message}; retrying every round`);
      }
      return false;
    }
    this.lastFailure.delete(key);
    if (stored && !(await stored.then((tokens) => tokens.includes(launch.token.toLowerCase())).catch(() => false))) {
      // Not stored as this launch's: nothing is settled; the stored launch's round (this step's next, or the next step) decides.
      await this.intents.handBack(
        claimToken,
        intents.map((i) => i.id),
      );
      return true;
    }
    const stamp = { ...launch.launch, pendingFrom: launch.pending?.origin ?? null, block: launch.blockNumber };
    const pipeline = new SubmissionPipeline(this.intents, chain.submitter, claimToken, plan.targetBlock, stamp, this.logger, launch.pending?.raw);
    pipeline.fail(plan.failures);
    if (plan.release.length > 0) pipeline.release(plan.release);
    // Nonces are per sender: the wallet, or for wallet intents the relayer.
    pipeline.expect(plan.jobs.map((j) => ({ id: j.intent.id, wallet: j.tx.from.toLowerCase(), nonce: BigInt(j.tx.nonce) })));
    if (plan.poolCheck) pipeline.gate(plan.poolCheck.then((clashing) => clashing.map((j) => ({ wallet: j.tx.from.toLowerCase(), nonce: BigInt(j.tx.nonce) }))));
    await mapLimit(signingUnits(plan.jobs), SIGNING_CONCURRENCY, async (unit) => {
      const results = await this.sign(chain, unit, plan.targetBlock, launch);
      pipeline.signedAll(unit.jobs.map((job, i) => [job.intent.id, results[i]!]));
    });
    const totals = await pipeline.finish();
    // The last buy is with the node or relay: what the latency counts to (backups go after).
    const done = Date.now();
    if (launch.pending && chain.submitter.kind === 'bundle') {
      // Backup bundles: the buys that are not firstOrFail, alone, for the block after the
      // launch's (they land only once the launch is in: alone before it they would revert).
      const firstOrFail = new Set(plan.jobs.filter((j) => j.intent.firstOrFail).map((j) => j.intent.id));
      const backup = pipeline.sent.filter((s) => !firstOrFail.has(s.intentId));
      if (backup.length > 0) await chain.submitter.submit(backup, plan.targetBlock + 1n);
    }
    // These buys were just sent for the block after this head: they are sent again only once a
    // later block comes without them (see follow()).
    if (plan.targetBlock - 1n > chain.resentAt) chain.resentAt = plan.targetBlock - 1n;
    if (totals.failed > 0 || totals.submitted > 0) this.relay.wake();
    const seen = launch.pending ? 'the launch transaction' : 'the launch block';
    const sinceSeen = launch.seenAt ? ` (${done - launch.seenAt.getTime()} ms after ${seen} was seen)` : '';
    this.logger.log(
      `launch of ${launch.token} on chain ${chain.config.chainId}: ${intents.length} intent(s), ${totals.submitted} submitted for block ${plan.targetBlock}, ${totals.failed} failed, ${totals.deferred} deferred, in ${done - started} ms${sinceSeen}`,
    );
    // Buys deferred behind a nonce gap go again at once; a launch whose pool emptied (a reorg) waits for the next block.
    return intents.length >= this.env.EXECUTION_BATCH || (totals.deferred > 0 && plan.release.length === 0);
  }

  /**
   * A unit's buys signed, a result each: a wallet intent's by the relayer, a bot intent's by its
   * webhook (several in one request where it takes batches) or a development signer.
   */
  private async sign(chain: Chain, unit: SigningUnit<Job>, targetBlock: bigint, launch: LaunchedToken): Promise<SignResult[]> {
    const signJob = ({ intent, tx }: Job): SignJob => ({
      intentId: intent.id,
      tenantId: intent.tenantId,
      webhookUrl: intent.webhookUrl,
      tx,
      launchBlock: targetBlock - 1n,
      targetBlock,
      protocol: intent.webhookProtocol,
      launch: { ...launch.launch, blockNumber: launch.blockNumber ?? targetBlock },
    });
    if (unit.batch) return this.webhookSigner.signBatch(unit.jobs.map(signJob));
    const [job] = unit.jobs as [Job];
    if (job.intent.signature) return [await chain.wallets!.relayer.sign(job.tx)];
    if (!job.intent.webhookUrl) return [await chain.devSigner.sign(job.tx)];
    return [await this.webhookSigner.sign(signJob(job))];
  }

  /** Reads the pool, probe and senders at the head, then checks every intent (pure); touches no row. */
  private async plan(chain: Chain, launch: LaunchedToken, head: Block, intents: ClaimedIntent[], pendingAhead?: Promise<unknown[] | null>): Promise<Plan> {
    const { config } = chain;
    const headNumber = BigInt(head.number);
    const targetBlock = headNumber + 1n;
    const baseFee = BigInt(head.baseFeePerGas ?? '0x0');
    const launchPool = await readLaunchPool(chain, launch, headNumber, await this.stableLayout(chain));
    if (launchPool.reserveNative === 0n || launchPool.reserveToken === 0n) {
      // The launch was undone (reorg) or the liquidity removed since: wait for the next one.
      return { targetBlock, failures: [], jobs: [], release: intents.map((i) => i.id) };
    }
    // The token probe (simulation service) and the wallets' nonces and balances (node, database) at once.
    const probeFor = probeIntent(intents);
    const probeToken = async () => {
      if (!probeFor) return null;
      const early = launch.pending ? await this.earlyProbe(config.chainId, launch.token, launch.pending.txHash, headNumber) : null;
      return early ?? this.prober.probe(config, launch, headNumber, launchPool, probeFor);
    };
    // Behind a pending launch, with the node's pending block asked for as the launch was
    // recognised (launchSeen): the buys are numbered without waiting for it (on hardhat, busy
    // behind a launch, it takes 20–60 ms), and it is checked before anything is settled
    // (poolCheck): a buy that meets a transaction of its sender's in the pool goes back to the queue.
    const numberFirst = pendingAhead !== undefined && (await chain.traits()).pendingNonces === 'block';
    const [probe, state] = await Promise.all([
      probeToken(),
      readSenders(
        chain,
        intents,
        headNumber,
        (senders) => this.repo.pendingNonces(config.chainId, senders),
        chain.senders,
        numberFirst ? Promise.resolve([null]) : pendingAhead,
      ),
    ]);
    const decided = planRound({
      chain: config,
      wallets: chain.wallets,
      token: launch.token,
      targetBlock,
      baseFee,
      behindLaunch: launch.pending ? { tipCap: chain.submitter.kind === 'rpc' ? effectiveTip(launch.pending.raw, baseFee) : null, pair: launch.pair } : null,
      defaultGasTip: BigInt(this.env.EXECUTION_DEFAULT_GAS_TIP_WEI),
      launchPool,
      probe,
      intents,
      state,
      devSignerHolds: (wallet) => chain.devSigner.holds(wallet),
    });
    const poolCheck = numberFirst ? clashingBuys(chain, decided.jobs, pendingAhead!) : undefined;
    return { targetBlock, ...decided, release: [], ...(poolCheck ? { poolCheck } : {}) };
  }

  /** Which side of the stable pair is the native token, and the stable's decimals (read once). */
  private stableLayout(chain: Chain): Promise<StableLayout | null> {
    const pair = chain.config.stablePair;
    if (!pair) return Promise.resolve(null);
    chain.stable ??= readStableLayout(chain.rpc, pair, chain.config.wrappedNative, () =>
      this.logger.warn(`STABLE_PAIR_${chain.config.chainId} ${pair} does not hold the wrapped native token: minLiquidity cannot be priced`),
    ).catch((err: unknown) => {
      chain.stable = undefined;
      throw err;
    });
    return chain.stable;
  }
}

/**
 * The buys that meet a transaction of their sender's in the node's pending block (`pending`: read
 * ahead, or read now when that read failed), with the sender's later buys; every buy when the
 * block cannot be read (nothing goes out on nonces the pool was not checked for).
 */
async function clashingBuys(chain: Pick<ExecutedChain, 'rpc'>, jobs: Job[], pending: Promise<unknown[] | null>): Promise<Job[]> {
  const first = new Map<string, bigint>();
  for (const { tx } of jobs) if (!first.has(tx.from.toLowerCase())) first.set(tx.from.toLowerCase(), BigInt(tx.nonce));
  if (first.size === 0) return [];
  try {
    const [block] = (await pending) ?? (await readPendingBlock(chain.rpc));
    const clashes = poolClashes((block ?? null) as PendingBlock | null, first);
    return jobs.filter(({ tx }) => clashes.has(tx.from.toLowerCase()));
  } catch {
    return jobs;
  }
}

/** The node's newest block. */
const readHead = (chain: Pick<ExecutedChain, 'rpc'>) => chain.rpc.call<Block>('eth_getBlockByNumber', ['latest', false]);

const earlyKey = (chainId: number, token: string, txHash: string, head: bigint) => `${chainId}:${token.toLowerCase()}:${txHash.toLowerCase()}:${head}`;
