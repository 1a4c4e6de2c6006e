import { getAddress } from 'ethers';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ChainNodes } from '../../common/chain-nodes.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { PeriodicTask } from '../../common/periodic-task.js';
import { ENV, type IntentServiceEnv, type WatchedChain } from '../../config/env.js';
import { ChainHeads } from '../../chain/chain-heads.js';
import { SimulationClient } from '../../chain/simulation-client.js';
import { getPairCall, pairFromResult } from '../../chain/uniswap-v2.js';
import { claimableProbeIntent, LaunchIntake, probeBehindLaunch, type ClaimedIntent, type LaunchedToken } from '../../execution/launch-intake.js';
import { IntentsRepository } from '../../intents/intents.repository.js';
import { ChainRpc } from '../../chain/chain-rpc.js';
import { addedLiquidity, type LaunchWatch } from './candidates.js';
import { PendingLaunchDetector, type BehindLaunch, type PendingLaunch } from './pending-launch-detector.js';
import type { RpcTransaction } from './raw-transaction.js';
import { PendingLaunchesRepository } from './pending-launches.repository.js';
import { PendingTransactions } from './pending-transactions.js';

/** A pending transaction's simulation must not hold the launch back longer than this. */
const SIMULATION_TIMEOUT_MS = 2_000;

interface ChainWatch {
  config: WatchedChain & { router: string };
  rpc: ChainRpc;
  feed: PendingTransactions;
  detector: PendingLaunchDetector;
  task: PeriodicTask;
  /** What the detector compares pending transactions with, replaced on every refresh. */
  state: { watch: LaunchWatch; knownPairs: Map<string, readonly [string, string]> };
  /** token → its pair with the wrapped native token, once looked up (null: none yet). */
  pairs: Map<string, string | null>;
  /** The head at which the tokens without a pair were last looked up (a pair comes only with a block). */
  pairsAt: bigint | null;
  /** token → the intent whose amounts probe it (the first a claim would take with something to buy), once looked up. */
  probeIntents: Map<string, ClaimedIntent>;
}

/**
 * Sees launches in the mempool (`MEMPOOL_LAUNCHES_<id>`): stores each launch of a token with
 * waiting intents and hands it to execution, which buys right behind it; forgets launches that
 * are no longer pending (docs/design/pending-launch-path.md).
 */
@Injectable()
export class PendingLaunchWatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PendingLaunchWatcher.name);
  private readonly chains: ChainWatch[] = [];

  constructor(
    private readonly repo: PendingLaunchesRepository,
    private readonly simulation: SimulationClient,
    private readonly executor: LaunchIntake,
    private readonly intents: IntentsRepository,
    private readonly heads: ChainHeads,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    @Inject(CLOCK) private readonly now: Clock,
    nodes: ChainNodes,
  ) {
    for (const config of env.watchedChains) {
      if (config.mempool === 'off' || !config.router) continue;
      const rpc = nodes.get(config.chainId);
      const chain = {
        config: { ...config, router: config.router },
        rpc,
        state: { watch: { router: config.router, factory: config.factory, tokens: new Set<string>() }, knownPairs: new Map() },
        pairs: new Map(),
        pairsAt: null,
        probeIntents: new Map(),
      } as unknown as ChainWatch;
      const detector = new PendingLaunchDetector({
        chainId: config.chainId,
        rpc,
        simulate: (request, onFirstCall) =>
          onFirstCall ? this.simulation.simulateStream(request, onFirstCall, SIMULATION_TIMEOUT_MS) : this.simulation.simulate(request, SIMULATION_TIMEOUT_MS),
        watch: () => chain.state,
        onLaunch: (launch) => this.stored(chain, launch),
        behind: (tx) => this.probeBehind(chain, tx),
        logger: this.logger,
      });
      chain.detector = detector;
      chain.feed = new PendingTransactions({
        wsUrls: config.mempool === 'ws' ? config.wsUrls : [],
        rpc,
        pollMs: env.LAUNCH_POLL_INTERVAL_MS,
        onHashes: (hashes) => {
          const seenAt = performance.now();
          detector.handle(hashes, seenAt).catch((err: Error) => this.logger.warn(`pending transactions on chain ${config.chainId}: ${err.message}`));
        },
        logger: this.logger,
      });
      chain.task = new PeriodicTask(`pending launches (chain ${config.chainId})`, env.LAUNCH_POLL_INTERVAL_MS, () => this.refresh(chain), this.logger);
      this.chains.push(chain);
    }
    executor.whenLaunchesLost(async (chainId) => {
      const chain = this.chains.find((c) => c.config.chainId === chainId);
      if (chain) await this.forgetDropped(chain);
    });
  }

  onApplicationBootstrap(): void {
    for (const chain of this.chains) {
      chain.task.start();
      chain.feed.start();
      this.logger.log(`following pending transactions on chain ${chain.config.chainId} (${chain.config.mempool}) for launches`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    for (const chain of this.chains) chain.feed.stop();
    await Promise.all(this.chains.map((c) => c.task.stop()));
  }

  /** Whether a pending launch of `token` on the chain would be recognised now (its intents are watched). */
  watches(chainId: number, token: string): boolean {
    return this.chains.find((c) => c.config.chainId === chainId)?.state.watch.tokens.has(token.toLowerCase()) ?? false;
  }

  private async stored(chain: ChainWatch, launch: PendingLaunch): Promise<void> {
    // When the transaction was first announced, on the wall clock (what the executor's latency counts from).
    const seenAt = new Date(this.now() - (performance.now() - launch.seenAt));
    // The round starts on the launch as recognised, while it is stored (see Executor.launchSeen).
    const recorded = this.repo.record(launch, chain.config.wrappedNative, seenAt);
    const txHash = launch.txHash.toLowerCase(); // as stored
    const launched = launch.launches
      .filter((l) => l.quote === chain.config.wrappedNative)
      .map((l): LaunchedToken => ({
        token: getAddress(l.token),
        pair: l.pair,
        blockNumber: null,
        seenAt,
        pending: {
          txHash,
          raw: launch.raw,
          origin: { sender: launch.transaction.from.toLowerCase(), nonce: BigInt(launch.transaction.nonce) },
          tokenReserve: l.tokenReserve,
          nativeReserve: l.quoteReserve,
          stateAfter: launch.stateAfter,
        },
        launch: { type: 'public_transaction', txHash },
      }));
    this.executor.launchSeen(chain.config.chainId, launched, recorded);
    // The token probe: made behind the launch in its own simulation (still running), else made
    // now (with the first intent a claim would take), beside storing the launch and the round's
    // lock and claim.
    for (const l of launch.launches) {
      if (l.quote !== chain.config.wrappedNative || !chain.state.watch.tokens.has(l.token)) continue;
      const recognised = {
        token: l.token,
        pair: l.pair,
        txHash: launch.txHash,
        headBlock: launch.headBlock,
        stateAfter: launch.stateAfter,
        tokenReserve: l.tokenReserve,
        nativeReserve: l.quoteReserve,
      };
      this.executor.probeEarly(
        chain.config.chainId,
        recognised,
        launch.probes.then((probes) => probes.get(l.token) ?? null),
      );
    }
    const stored = await recorded;
    if (stored.length === 0) return;
    const watch = chain.state.watch;
    chain.state = { ...chain.state, watch: { ...watch, tokens: new Set([...watch.tokens].filter((t) => !stored.includes(t))) } };
    const ms = (performance.now() - launch.seenAt).toFixed(1);
    this.logger.log(`pending launch of ${stored.join(', ')} on chain ${chain.config.chainId} in ${launch.txHash}, stored ${ms} ms after it was seen`);
  }

  /**
   * The token probe to run right behind a candidate in its own simulation: only for the router's
   * `addLiquidity(ETH)` of a watched token, whose pool is known from its calldata
   * (docs/design/pending-launch-path.md).
   */
  private probeBehind(chain: ChainWatch, tx: RpcTransaction): BehindLaunch | null {
    const { config } = chain;
    const added = addedLiquidity(tx, config.router, config.wrappedNative);
    if (!added) return null;
    const intent = chain.probeIntents.get(added.token);
    if (!intent || !chain.state.watch.tokens.has(added.token)) return null;
    return probeBehindLaunch(config, intent, added);
  }

  /** The tokens to watch (and their pairs made before any liquidity); launches dropped or replaced are forgotten. */
  private async refresh(chain: ChainWatch): Promise<boolean> {
    const { config, rpc } = chain;
    const tokens = await this.repo.watchedTokens(config.chainId);
    // A token seen for the first time, and those without a pair at each new head (or on every
    // refresh while the launch watcher has seen no head lately).
    const head = this.heads.recent(config.chainId, 2 * this.env.LAUNCH_POLL_INTERVAL_MS);
    const newHead = head === null || head !== chain.pairsAt;
    const unknown = tokens.filter((t) => !chain.pairs.has(t) || (newHead && chain.pairs.get(t) === null));
    if (unknown.length > 0) {
      const pairs = await rpc.all<string>(unknown.map((t) => getPairCall(config.factory, t, config.wrappedNative, 'latest')));
      unknown.forEach((t, i) => chain.pairs.set(t, pairFromResult(pairs[i])));
    }
    if (newHead) chain.pairsAt = head;
    const knownPairs = new Map<string, readonly [string, string]>();
    for (const t of tokens) {
      const pair = chain.pairs.get(t);
      if (pair) knownPairs.set(pair, t < config.wrappedNative ? [t, config.wrappedNative] : [config.wrappedNative, t]);
    }
    chain.state = { watch: { router: config.router, factory: config.factory, tokens: new Set(tokens) }, knownPairs };
    // The intent each watched token would be probed with (looked up once per token, and again once it has expired).
    const now = BigInt(Math.floor(this.now() / 1000));
    for (const [t, intent] of chain.probeIntents) if (!chain.state.watch.tokens.has(t) || intent.expiry <= now) chain.probeIntents.delete(t);
    for (const t of tokens.filter((t) => !chain.probeIntents.has(t))) {
      const intent = await claimableProbeIntent(this.intents, config.chainId, t);
      if (intent) chain.probeIntents.set(t, intent);
    }
    await this.forgetDropped(chain);
    return false;
  }

  /**
   * Forgets a pending launch once it is no longer pending: dropped, replaced or reverted (the token
   * is watched again; the follow step decides its buys), or mined and processed by the block
   * watcher, which takes over (docs/design/pending-launch-path.md).
   */
  private async forgetDropped(chain: ChainWatch): Promise<void> {
    const chainId = chain.config.chainId;
    const open = await this.repo.open(chainId);
    if (open.length === 0) return;
    // Asked of every node: one behind, or that never got the transaction, would call it dropped.
    const answers = await chain.rpc.everywhere<{ blockNumber: string | null; status?: string } | null>(
      open.flatMap((l) => [
        { method: 'eth_getTransactionByHash', params: [l.txHash] },
        { method: 'eth_getTransactionReceipt', params: [l.txHash] },
      ]),
    );
    const cursor = await this.repo.blockCursor(chainId);
    let forgot = false;
    for (const [i, launch] of open.entries()) {
      const [tx, receipt] = [answers[2 * i]!, answers[2 * i + 1]!];
      if (tx.error || receipt.error) continue;
      const message = `pending launch ${launch.txHash} of ${launch.token} on chain ${chainId}`;
      const reverted = receipt.result?.status === '0x0';
      if (receipt.result && !reverted) {
        if (cursor === null || cursor < BigInt(receipt.result.blockNumber ?? '0x0')) continue;
        if ((await this.repo.remove(chainId, launch.txHash)) === 0) continue;
        this.logger.log(`${message} was mined: the block watcher takes over`);
      } else if (!tx.result || reverted) {
        // No launch after all: the intents wait for the next one. The very same transaction may be
        // sent again later: it is a launch again then.
        if (!reverted) {
          chain.feed.forget(launch.txHash);
          chain.detector.forget(launch.txHash);
        }
        // (0: another replica forgot it first.)
        if ((await this.repo.remove(chainId, launch.txHash)) === 0) continue;
        this.logger.warn(`${message} ${reverted ? 'was mined and reverted' : 'was dropped or replaced'}: its intents wait for the next launch`);
        forgot = true;
      }
    }
    // The follower judges the buys sent behind it now, not at the next block.
    if (forgot) this.executor.wake(chainId);
  }
}
