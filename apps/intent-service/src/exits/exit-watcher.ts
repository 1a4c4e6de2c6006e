import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { FailureReason } from '@tradeinfra/contracts';
import { BundleRelays } from '@tradeinfra/service-kit';
import { ChainScheduler } from '../chain/chain-scheduler.js';
import { SimulationClient } from '../chain/simulation-client.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { WebhookClient } from '../common/webhook-client.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { type Block } from '../execution/buy-judgement.js';
import { EXECUTED_CHAINS, type ExecutedChain } from '../execution/chain-clients.js';
import { ExecutionRepository } from '../execution/execution.repository.js';
import { readHead } from '../execution/round-chain.js';
import { WebhookSigner } from '../execution/signer.js';
import { IntentsRepository } from '../intents/intents.repository.js';
import { PendingTransactions } from '../launch/pending/pending-transactions.js';
import { SigningSecrets } from '../notifications/signing-secrets.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { type ExitChain } from './exit-chain.js';
import { FireStep } from './exit-fire.js';
import { FollowStep } from './exit-follow.js';
import { PricingStep } from './exit-pricing.js';
import { rugFirings, RugStep } from './exit-rug.js';
import { SellSigner } from './exit-signing.js';
import { ExitsRepository, type WatchedExit } from './exits.repository.js';

/**
 * Fires exits (docs/design/exits.md). At each new block of an executed chain, under its execution
 * lock: follows the sent sells (FollowStep), prices each watched token's exits (PricingStep),
 * fires those whose price trigger holds (FireStep) and builds the `onRug` exits' sells ahead for
 * the mempool watch (RugStep), which fires them ahead of a pending rug.
 */
@Injectable()
export class ExitWatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ExitWatcher.name);
  private readonly scheduler: ChainScheduler;
  private readonly chains = new Map<number, ExitChain>();
  private readonly pricing: PricingStep;
  private readonly firing: FireStep;
  private readonly follower: FollowStep;
  private readonly rug: RugStep;

  constructor(
    private readonly repo: ExitsRepository,
    intents: IntentsRepository,
    private readonly execution: ExecutionRepository,
    simulation: SimulationClient,
    private readonly relay: OutboxRelay,
    secrets: SigningSecrets,
    webhooks: WebhookClient,
    @Inject(ENV) env: IntentServiceEnv,
    @Inject(EXECUTED_CHAINS) executed: ExecutedChain[],
    @Inject(CLOCK) private readonly now: Clock,
  ) {
    const signer = new WebhookSigner({
      timeoutMs: env.SIGNER_TIMEOUT_MS,
      sign: (tenantId, timestamp, body) => secrets.sign(tenantId, timestamp, body),
      client: webhooks,
      now,
    });
    this.pricing = new PricingStep(simulation);
    this.firing = new FireStep(repo, intents, new SellSigner(signer, BigInt(env.EXECUTION_DEFAULT_GAS_TIP_WEI)), now, this.logger, () => relay.wake(), env);
    this.follower = new FollowStep(repo, intents);
    this.rug = new RugStep(simulation, this.firing, now, this.logger);
    this.scheduler = new ChainScheduler('exits', env.LAUNCH_POLL_INTERVAL_MS, this.logger);
    for (const clients of executed) {
      const relays = clients.config.relays.length > 0 ? new BundleRelays(clients.config.relays, env.RELAY_AUTH_KEY ?? null) : null;
      const chain: ExitChain = { ...clients, lastHead: -1n, tokens: new Map(), rugWatch: new Map(), signedAhead: new Map(), pending: null, relays };
      if (clients.config.mempool !== 'off') {
        chain.pending = new PendingTransactions({
          wsUrls: clients.config.mempool === 'ws' ? clients.config.wsUrls : [],
          rpc: clients.rpc,
          pollMs: env.LAUNCH_POLL_INTERVAL_MS,
          onHashes: (hashes) => void this.rug.onPending(chain, hashes, this.now()),
          logger: this.logger,
        });
      }
      this.chains.set(clients.config.chainId, chain);
      this.scheduler.add(clients.config.chainId, () => this.step(chain));
    }
  }

  /** Latency of the last firing rounds: trigger seen → last sell handed over (ms), for bench/. */
  get fireLatencies(): number[] {
    return this.firing.latencies;
  }

  onApplicationBootstrap(): void {
    this.scheduler.start();
    for (const chain of this.chains.values()) chain.pending?.start();
  }

  async onModuleDestroy(): Promise<void> {
    for (const chain of this.chains.values()) chain.pending?.stop();
    await this.scheduler.stop();
  }

  wake(chainId: number): void {
    this.scheduler.wake(chainId);
  }

  /** The last block whose exits were evaluated on the chain (-1: none yet). */
  evaluatedHead(chainId: number): bigint {
    return this.chains.get(chainId)?.lastHead ?? -1n;
  }

  /** Once per new block: follow the sent sells, then evaluate the waiting exits, under the chain's execution lock. */
  private async step(chain: ExitChain): Promise<boolean> {
    const chainId = chain.config.chainId;
    const head = await readHead(chain);
    const number = BigInt(head.number);
    if (number === chain.lastHead) return false;
    const seenAt = this.now();
    const [waiting, submitted] = await Promise.all([this.repo.waiting(chainId), this.repo.submitted(chainId)]);
    if (waiting.length === 0 && submitted.length === 0) {
      chain.lastHead = number;
      chain.rugWatch.clear();
      chain.signedAhead.clear();
      return false;
    }
    const done = await this.execution.withChainLock(chainId, async () => {
      if (submitted.length > 0 && (await this.follower.follow(chain, head, submitted)) > 0) this.relay.wake();
      await this.evaluate(chain, head, waiting, seenAt);
      return true;
    });
    if (done !== null) chain.lastHead = number;
    return false;
  }

  /** Prices every waiting exit at `head` per token, fires those whose trigger holds, keeps the `onRug` ones watched. */
  private async evaluate(chain: ExitChain, head: Block, waiting: WatchedExit[], seenAt: number): Promise<void> {
    const byToken = new Map<string, WatchedExit[]>();
    for (const exit of waiting) byToken.set(exit.token, [...(byToken.get(exit.token) ?? []), exit]);
    const ids = new Set(waiting.map((e) => e.id));
    for (const token of chain.rugWatch.keys()) if (!byToken.has(token)) chain.rugWatch.delete(token);
    for (const id of chain.signedAhead.keys()) if (!ids.has(id)) chain.signedAhead.delete(id);
    for (const [token, exits] of byToken) {
      try {
        await this.evaluateToken(chain, head, token, exits, seenAt);
      } catch (err) {
        this.logger.warn(`exits of ${token} on chain ${chain.config.chainId}: ${(err as Error).message}; trying again at the next block`);
      }
    }
  }

  private async evaluateToken(chain: ExitChain, head: Block, token: string, exits: WatchedExit[], seenAt: number): Promise<void> {
    const priced = await this.pricing.price(chain, head, token, exits);
    if (!priced) return void chain.rugWatch.delete(token);
    const { info, pool, loss, amounts } = priced;
    if (loss === null) {
      // The sale reverts (a honeypot, trading off, a 100 % tax): nothing is sent; the exits wait (docs/api/exits.md).
      chain.rugWatch.delete(token);
      const fresh = priced.priced.filter((e) => e.statusReason !== FailureReason.Honeypot);
      await this.repo.note(fresh.map((e) => ({ id: e.id, reason: FailureReason.Honeypot, data: null })));
      return;
    }
    const guarded = priced.priced.filter((e) => e.onRug);
    if (guarded.length > 0) {
      const watch = { pair: info.pair, exits: guarded, amounts, pool, loss, decimals: info.decimals, head };
      // The sells are built (nonces, allowances read; signed where the development signer signs) for a rug at this block.
      // Without relays a rug's sells are built when it comes (they must outbid it).
      const ready = chain.relays
        ? this.firing.prepare(chain, head, token, pool, loss, rugFirings(watch), true, priced.senders).catch(() => null)
        : Promise.resolve(null);
      chain.rugWatch.set(token, { ...watch, ready });
    } else chain.rugWatch.delete(token);
    if (priced.firing.length > 0) await this.firing.fire(chain, head, token, pool, loss, priced.firing, seenAt, null, null, priced.senders);
    await this.repo.recordPrices(
      [...priced.entries].map(([id, price]) => ({ id, price })),
      priced.highs,
    );
  }
}
