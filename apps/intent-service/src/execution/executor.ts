import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { abiWord, DECIMALS, GET_RESERVES, TOKEN0, TOKEN1, type IntentStatusData, type SimulationResult, type UnsignedTransaction } from '@tradeinfra/contracts';
import { encodeExecute } from '@tradeinfra/executor';
import { getAddress, Interface } from 'ethers';
import { PeriodicTask } from '../common/periodic-task.js';
import { WebhookClient } from '../common/webhook-client.js';
import { ENV, type IntentServiceEnv, type WatchedChain } from '../config/env.js';
import { ChainRpc } from '../launch/chain-rpc.js';
import { SigningSecrets } from '../notifications/signing-secrets.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { approveCalldata, balanceOfCalldata, buyInitCode, getAmountOut, routerSellCalldata, type BuyPlan } from './buy.js';
import { checkIntent, FailureReason, liquidityInCents, lossScaled, type PoolState, type TokenProbe } from './checks.js';
import { ExecutionRepository, type ClaimedIntent, type LaunchedToken, type Outcome, type ToSubmit } from './execution.repository.js';
import { DevSigner, WebhookSigner, type SignResult } from './signer.js';
import { SimulationClient } from './simulation-client.js';
import { toBuyIntent } from '../intents/wallet-intent.js';
import { BundleSubmitter, RpcSubmitter, type Submission, type Submitter } from './submitter.js';
import { effectiveTip, withBalance } from './launch-state.js';

/** statusReason of a pending intent whose launch round failed for a transient reason (and of one that expired so). */
export const EXECUTION_UNAVAILABLE = 'execution_unavailable';
/** Webhook requests in flight at once per round. */
const SIGNING_CONCURRENCY = 256;
/** The simulated wallet gets this much more than it spends (gas is free in simulation, but be safe). */
const SIMULATION_HEADROOM = 10n ** 18n;
/** A wallet intent's buy through the executor costs more than the probe's direct buy: signature check, nonce, WETH transfer and unwrap. */
const EXECUTOR_EXTRA_GAS = 100_000n;
const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)', 'function allowance(address,address) view returns (uint256)']);
const EXECUTOR_VIEWS = new Interface(['function isNonceUsed(address wallet, uint256 nonce) view returns (bool)']);

/** A chain's executor contract and the relayer that sends wallet intents' buys to it. */
interface WalletExecution {
  executor: string;
  relayer: DevSigner;
  relayerAddress: string;
}

interface Chain {
  config: WatchedChain & { router: string };
  rpc: ChainRpc;
  submitter: Submitter;
  devSigner: DevSigner;
  /** Wallet intents' execution: null where EXECUTOR_<id> is not set. */
  wallets: WalletExecution | null;
  task: PeriodicTask;
  /** The head at which waiting buys were last sent again (once per new block). */
  resentAt: bigint;
  /** The stable pair's layout, read once: which side is native, the stable's decimals. */
  stable?: Promise<{ nativeIsToken0: boolean; decimals: number } | null>;
}

interface Block {
  number: string;
  hash: string;
  timestamp: string;
  baseFeePerGas?: string;
}

const word = abiWord;

const hexQ = (n: bigint) => `0x${n.toString(16)}`;

/**
 * Executes intents when their token launches, per chain (one PeriodicTask each, woken by the
 * launch watcher on every new block):
 *
 * 1. **Follow** the buys already submitted: mined → `completed` (or `failed`/`reverted`); not in
 *    the target block with firstOrFail → `failed`/`not_included`; past expiry → `expired`;
 *    otherwise send again for the next block.
 * 2. **Execute** launched tokens: claim their waiting intents (highest bribe first; a claim is a
 *    row lease, so replicas share the work and a dead replica's claims lapse), probe the token
 *    once with the simulation service (a buy and a sell on the launch state: taxes, honeypot,
 *    gas), check every intent against the pool as the earlier buys leave it, build each buy
 *    (see buy.ts), have it signed (webhook or development signer) and verified, mark the
 *    signed buys submitted (only those still pending: a cancel or expiry that came first wins),
 *    and send them.
 */
@Injectable()
export class Executor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Executor.name);
  private readonly chains = new Map<number, Chain>();
  private readonly webhookSigner: WebhookSigner;
  /** Per (chain, token), the last transient failure logged (the same one is not logged every round). */
  private readonly lastFailure = new Map<string, string>();

  constructor(
    private readonly repo: ExecutionRepository,
    private readonly simulation: SimulationClient,
    private readonly relay: OutboxRelay,
    secrets: SigningSecrets,
    webhooks: WebhookClient,
    @Inject(ENV) private readonly env: IntentServiceEnv,
  ) {
    this.webhookSigner = new WebhookSigner({
      timeoutMs: env.SIGNER_TIMEOUT_MS,
      sign: (tenantId, timestamp, body) => secrets.sign(tenantId, timestamp, body),
      client: webhooks,
    });
    for (const config of env.watchedChains) {
      if (!config.router) continue;
      const rpc = new ChainRpc(config.rpcUrl);
      const chain: Chain = {
        config: { ...config, router: config.router },
        rpc,
        submitter: config.relays.length > 0 ? new BundleSubmitter(config.relays, env.RELAY_AUTH_KEY ?? null) : new RpcSubmitter(rpc),
        devSigner: new DevSigner(config.devSignerKeys),
        wallets: config.executor && config.relayerKey ? walletExecution(config.executor, config.relayerKey) : null,
        task: null as unknown as PeriodicTask,
        resentAt: -1n,
      };
      chain.task = new PeriodicTask(`executor (chain ${config.chainId})`, env.LAUNCH_POLL_INTERVAL_MS, () => this.step(chain), this.logger);
      this.chains.set(config.chainId, chain);
    }
  }

  onApplicationBootstrap(): void {
    for (const chain of this.chains.values()) {
      chain.task.start();
      this.logger.log(
        `executing intents on chain ${chain.config.chainId} through router ${chain.config.router}, submitting with ${chain.submitter.kind === 'bundle' ? `eth_sendBundle to ${chain.config.relays.length} relay(s)` : 'eth_sendRawTransaction'}`,
      );
    }
    for (const config of this.env.watchedChains) {
      if (!config.router) this.logger.warn(`chain ${config.chainId} has no DEX_ROUTER_${config.chainId}: launches are recorded, intents are not executed`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.chains.values()].map((c) => c.task.stop()));
  }

  /** A new block or launch on the chain: act now rather than at the next tick. */
  wake(chainId: number): void {
    this.chains.get(chainId)?.task.wake();
  }

  private async step(chain: Chain): Promise<boolean> {
    // Another replica executing this chain: it has the work; this one checks again next tick.
    return (await this.repo.withChainLock(chain.config.chainId, () => this.stepLocked(chain))) ?? false;
  }

  private async stepLocked(chain: Chain): Promise<boolean> {
    const head = await chain.rpc.call<Block>('eth_getBlockByNumber', ['latest', false]);
    await this.follow(chain, head);
    let more = false;
    for (const launch of await this.repo.launchedTokens(chain.config.chainId)) {
      more = (await this.execute(chain, launch, head)) || more;
    }
    return more;
  }

  // ---- following submitted buys ----

  private async follow(chain: Chain, head: Block): Promise<void> {
    const submitted = await this.repo.submitted(chain.config.chainId);
    if (submitted.length === 0) return;
    const headNumber = BigInt(head.number);
    const receipts = await chain.rpc.batch<{ status: string; blockNumber: string } | null>(
      submitted.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })),
    );
    const minedIn = new Set<string>();
    receipts.forEach((r) => r.result && minedIn.add(r.result.blockNumber));
    const blocks = await chain.rpc.all<Block>([...minedIn].map((n) => ({ method: 'eth_getBlockByNumber', params: [n, false] })));
    const timestampOf = new Map(blocks.map((b) => [b.number, new Date(Number(BigInt(b.timestamp)) * 1000)]));
    const outcomes: Outcome[] = [];
    const waiting = submitted.filter((s, i) => {
      const receipt = receipts[i]!.result;
      if (!receipt) return true;
      const executedAt = timestampOf.get(receipt.blockNumber) ?? null;
      const txHash = { txHash: s.txHash };
      if (receipt.status === '0x1') outcomes.push({ id: s.id, status: 'completed', reason: null, executedAt, data: txHash });
      else if (s.firstOrFail && BigInt(receipt.blockNumber) !== s.targetBlock) {
        outcomes.push({
          id: s.id,
          status: 'failed',
          reason: FailureReason.NotIncluded,
          executedAt: null,
          data: { ...txHash, targetBlock: String(s.targetBlock) },
        });
      } else outcomes.push({ id: s.id, status: 'failed', reason: FailureReason.Reverted, executedAt: null, data: txHash });
      return false;
    });
    const resend: typeof waiting = [];
    if (waiting.length > 0) {
      const nonces = await chain.rpc.all<string>(waiting.map((s) => ({ method: 'eth_getTransactionCount', params: [s.wallet, 'latest'] })));
      const nonceTaken: typeof waiting = [];
      waiting.forEach((s, i) => {
        // Receipts were read after `head`: a buy in any block up to it would have shown one.
        if (s.firstOrFail && headNumber >= s.targetBlock) {
          outcomes.push({
            id: s.id,
            status: 'failed',
            reason: FailureReason.NotIncluded,
            executedAt: null,
            data: { txHash: s.txHash, targetBlock: String(s.targetBlock) },
          });
        } else if (BigInt(head.timestamp) > s.expiry) {
          outcomes.push({ id: s.id, status: 'expired', reason: 'expiry reached before the buy was included', executedAt: null, data: { txHash: s.txHash } });
        } else if (BigInt(nonces[i]!) > s.nonce) {
          nonceTaken.push(s);
        } else {
          resend.push(s);
        }
      });
      if (nonceTaken.length > 0) {
        // The nonce moved on: another transaction took it, unless the buy itself was mined since
        // its receipt was read (then the next round records it).
        const again = await chain.rpc.batch<unknown>(nonceTaken.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })));
        nonceTaken.forEach((s, i) => {
          if (!again[i]!.error && !again[i]!.result)
            outcomes.push({ id: s.id, status: 'failed', reason: FailureReason.NonceUsed, executedAt: null, data: { txHash: s.txHash } });
        });
      }
    }
    if (outcomes.length > 0) {
      const changed = await this.repo.recordOutcomes(outcomes);
      if (changed > 0) this.relay.wake();
      for (const o of outcomes) this.logger.log(`intent ${o.id}: ${o.status}${o.reason ? ` (${o.reason})` : ''}`);
    }
    if (resend.length > 0 && headNumber > chain.resentAt) {
      // A block came without them: send again for the next one (a node that has them ignores it).
      chain.resentAt = headNumber;
      await chain.submitter.submit(
        resend.map((s) => ({ intentId: s.id, raw: s.signedTx, hash: s.txHash })),
        headNumber + 1n,
      );
    }
  }

  // ---- executing a launch ----

  /** One round for one launched token; true when more of its intents wait. */
  private async execute(chain: Chain, launch: LaunchedToken, head: Block): Promise<boolean> {
    const claimToken = randomUUID();
    const intents = await this.repo.claim(chain.config.chainId, launch.token, claimToken, this.env.EXECUTION_BATCH);
    if (intents.length === 0) return false;
    const started = Date.now();
    let plan: Plan;
    try {
      plan = await this.plan(chain, launch, head, intents);
    } catch (err) {
      // The node or the simulation service failed: nothing was decided, the next round retries.
      await this.repo.release(
        claimToken,
        intents.map((i) => i.id),
        EXECUTION_UNAVAILABLE,
      );
      const key = `${chain.config.chainId}:${launch.token}`;
      const message = (err as Error).message;
      if (this.lastFailure.get(key) !== message) {
        this.lastFailure.set(key, message);
        this.logger.warn(`launch of ${launch.token} on chain ${chain.config.chainId}: ${message}; retrying every round`);
      }
      return false;
    }
    this.lastFailure.delete(`${chain.config.chainId}:${launch.token}`);
    const pipeline = new SubmissionPipeline(chain, this.repo, claimToken, plan.targetBlock, this.logger, launch.pending?.raw);
    pipeline.fail(plan.failures);
    if (plan.release.length > 0) pipeline.release(plan.release);
    // Nonces are per sender: the wallet, or for wallet intents the relayer.
    pipeline.expect(plan.jobs.map((j) => ({ id: j.intent.id, wallet: j.tx.from.toLowerCase(), nonce: BigInt(j.tx.nonce) })));
    await mapLimit(plan.jobs, SIGNING_CONCURRENCY, async ({ intent, tx }) => {
      const result = intent.signature
        ? await chain.wallets!.relayer.sign(tx)
        : intent.webhookUrl
          ? await this.webhookSigner.sign({
              intentId: intent.id,
              tenantId: intent.tenantId,
              webhookUrl: intent.webhookUrl,
              tx,
              launchBlock: plan.targetBlock - 1n,
              targetBlock: plan.targetBlock,
            })
          : await chain.devSigner.sign(tx);
      pipeline.signed(intent.id, result);
    });
    const totals = await pipeline.finish();
    // These buys were just sent for the block after this head: they are sent again only once a
    // later block comes without them (see follow()).
    if (plan.targetBlock - 1n > chain.resentAt) chain.resentAt = plan.targetBlock - 1n;
    if (totals.failed > 0 || totals.submitted > 0) this.relay.wake();
    const done = Date.now();
    const seen = launch.pending ? 'the launch transaction' : 'the launch block';
    const sinceSeen = launch.seenAt ? ` (${done - launch.seenAt.getTime()} ms after ${seen} was seen)` : '';
    this.logger.log(
      `launch of ${launch.token} on chain ${chain.config.chainId}: ${intents.length} intent(s), ${totals.submitted} submitted for block ${plan.targetBlock}, ${totals.failed} failed, ${totals.deferred} deferred, in ${done - started} ms${sinceSeen}`,
    );
    // Buys deferred behind a nonce gap go again at once; a launch whose pool emptied (a reorg) waits for the next block.
    return intents.length >= this.env.EXECUTION_BATCH || (totals.deferred > 0 && plan.release.length === 0);
  }

  /** Checks every intent and builds the buys of the ones that pass; touches no row. */
  private async plan(chain: Chain, launch: LaunchedToken, head: Block, intents: ClaimedIntent[]): Promise<Plan> {
    const { config, rpc } = chain;
    const headNumber = BigInt(head.number);
    const targetBlock = headNumber + 1n;
    const at = hexQ(headNumber);
    const sender = (i: ClaimedIntent) => (i.signature && chain.wallets ? chain.wallets.relayerAddress : i.wallet);
    const wallets = [...new Set(intents.map(sender))];
    const walletIntents = chain.wallets ? intents.filter((i) => i.signature) : [];
    const stableLayout = await this.stableLayout(chain);
    const { pending } = launch;
    const nothing = { method: 'eth_chainId', params: [] };
    const [reserves, stableReserves] = await rpc.all<string>([
      // A pending launch: the pool as the launch transaction leaves it (simulated on the head).
      pending ? nothing : { method: 'eth_call', params: [{ to: launch.pair, data: GET_RESERVES }, at] },
      stableLayout ? { method: 'eth_call', params: [{ to: config.stablePair, data: GET_RESERVES }, at] } : nothing,
    ]);
    const tokenIsToken0 = launch.token.toLowerCase() < config.wrappedNative;
    const [r0, r1] = pending ? [0n, 0n] : [word(reserves!, 0), word(reserves!, 1)];
    const launchPool: PoolState = {
      reserveNative: pending ? pending.nativeReserve : tokenIsToken0 ? r1 : r0,
      reserveToken: pending ? pending.tokenReserve : tokenIsToken0 ? r0 : r1,
      liquidityCents: null,
    };
    const plan: Plan = { targetBlock, failures: [], jobs: [], release: [] };
    if (launchPool.reserveNative === 0n || launchPool.reserveToken === 0n) {
      // The launch was undone (reorg) or the liquidity removed since: wait for the next one.
      plan.release = intents.map((i) => i.id);
      return plan;
    }
    if (stableLayout) {
      const [s0, s1] = [word(stableReserves!, 0), word(stableReserves!, 1)];
      launchPool.liquidityCents = liquidityInCents(launchPool.reserveNative, {
        reserveNative: stableLayout.nativeIsToken0 ? s0 : s1,
        reserveStable: stableLayout.nativeIsToken0 ? s1 : s0,
        stableDecimals: stableLayout.decimals,
      });
    }
    // The token probe (simulation service) and the wallets' nonces and balances (node, database) at once.
    const probeFor = intents.find((i) => BigInt(i.buyAmount) - (BigInt(i.buyAmount) * BigInt(i.feeBps ?? 0)) / 10_000n > 0n);
    const [probe, perWallet, outstanding, walletReads] = await Promise.all([
      probeFor ? this.probe(chain, launch, headNumber, launchPool, probeFor) : Promise.resolve(null),
      rpc.all<string>(
        wallets.flatMap((w) => [
          { method: 'eth_getTransactionCount', params: [w, 'pending'] },
          { method: 'eth_getBalance', params: [w, at] },
        ]),
      ),
      this.repo.pendingNonces(config.chainId, wallets),
      // Wallet intents: the wallet's wrapped native balance and allowance to the executor, and whether its nonce is spent or revoked.
      rpc.all<string>(
        walletIntents.flatMap((i) => [
          { method: 'eth_call', params: [{ to: config.wrappedNative, data: ERC20.encodeFunctionData('balanceOf', [i.wallet]) }, at] },
          { method: 'eth_call', params: [{ to: config.wrappedNative, data: ERC20.encodeFunctionData('allowance', [i.wallet, chain.wallets!.executor]) }, at] },
          { method: 'eth_call', params: [{ to: chain.wallets!.executor, data: EXECUTOR_VIEWS.encodeFunctionData('isNonceUsed', [i.wallet, i.nonce]) }, at] },
        ]),
      ),
    ]);
    // Per wallet (lowercase): the wrapped native it still holds and still allows the executor, as this round's earlier buys leave them.
    const wrapped = new Map<string, { balance: bigint; allowance: bigint }>();
    const nonceSpent = new Set<string>();
    walletIntents.forEach((i, k) => {
      wrapped.set(i.wallet.toLowerCase(), { balance: BigInt(walletReads[3 * k]!), allowance: BigInt(walletReads[3 * k + 1]!) });
      if (BigInt(walletReads[3 * k + 2]!) !== 0n) nonceSpent.add(i.id);
    });
    // The node's pending nonce, past any of the wallet's buys still out (a bundle is not in its pool).
    const nonce = new Map<string, bigint>();
    const balance = new Map<string, bigint>();
    wallets.forEach((w, i) => {
      const next = BigInt(perWallet[2 * i]!);
      const after = (outstanding.get(w.toLowerCase()) ?? -1n) + 1n;
      nonce.set(w, next > after ? next : after);
      balance.set(w, BigInt(perWallet[2 * i + 1]!));
    });

    const fail = (intent: ClaimedIntent, reason: FailureReason, detail: string, data?: IntentStatusData) =>
      plan.failures.push({ id: intent.id, reason, detail, data });
    const baseFee = BigInt(head.baseFeePerGas ?? '0x0');
    const launchTip = pending && chain.submitter.kind === 'rpc' ? effectiveTip(pending.raw, baseFee) : null;
    const pool = { reserveNative: launchPool.reserveNative, reserveToken: launchPool.reserveToken };
    const router = getAddress(config.router);
    const token = getAddress(launch.token);
    for (const intent of intents) {
      if (!probe) {
        const buyAmount = BigInt(intent.buyAmount);
        const fee = intent.feeBps ? (buyAmount * BigInt(intent.feeBps)) / 10_000n : 0n;
        fail(intent, FailureReason.NothingToBuy, 'buyAmount after the fee is 0', { buyAmount: String(buyAmount), fee: String(fee) });
        continue;
      }
      if ('reverted' in probe) {
        fail(intent, FailureReason.BuyReverted, `a simulated buy reverted: ${probe.reverted}`);
        continue;
      }
      const checked = checkIntent(intent, launchPool, pool, probe);
      if (!checked.ok) {
        fail(intent, checked.reason, checked.detail, checked.data);
        continue;
      }
      const { quote } = checked;
      const bribe = BigInt(intent.bribe);
      const wanted = BigInt(intent.gasTip ?? this.env.EXECUTION_DEFAULT_GAS_TIP_WEI);
      // Behind a pending launch on a node's pool, a buy must not outbid the launch: ordered by
      // tip, it would come first and find no pool.
      const tip = launchTip !== null && launchTip < wanted ? launchTip : wanted;
      const maxFeePerGas = 2n * baseFee + tip;
      if (intent.signature) {
        const job = this.walletIntentBuy(chain, intent, {
          nonceSpent,
          wrapped,
          nonce,
          balance,
          fail,
          targetBlock,
          inLaunchBlock: pending !== null,
          probeGas: probe.buyGas,
          maxFeePerGas,
          tip,
          token,
          router,
          quote,
        });
        if (job) {
          plan.jobs.push(job);
          pool.reserveNative += quote.swapValue;
          pool.reserveToken -= quote.grossOut;
        }
        continue;
      }
      if (!intent.webhookUrl && !chain.devSigner.holds(intent.wallet)) {
        fail(intent, FailureReason.NoSigner, 'the intent has no webhookUrl and no development signer holds the wallet');
        continue;
      }
      const gasLimit = (probe.buyGas * 3n) / 2n + 30_000n;
      const value = quote.swapValue + quote.fee + bribe;
      const cost = value + gasLimit * maxFeePerGas;
      const left = balance.get(intent.wallet)!;
      if (left < cost) {
        fail(intent, FailureReason.InsufficientFunds, `the wallet holds ${left} wei, the buy needs up to ${cost}`, {
          balance: String(left),
          required: String(cost),
        });
        continue;
      }
      balance.set(intent.wallet, left - cost);
      const onlyInBlock = intent.firstOrFail ? targetBlock : null;
      const n = nonce.get(intent.wallet)!;
      nonce.set(intent.wallet, n + 1n);
      const data = buyInitCode({
        router: config.router,
        wrappedNative: config.wrappedNative,
        token: launch.token,
        wallet: intent.wallet,
        swapValue: quote.swapValue,
        amountOutMin: quote.amountOutMin,
        deadline: intent.expiry,
        fee: quote.fee,
        feeRecipient: intent.feeRecipient,
        bribe,
        onlyInBlock,
      });
      plan.jobs.push({
        intent,
        tx: {
          purpose: 'buy',
          type: 2,
          chainId: config.chainId,
          from: intent.wallet, // stored EIP-55
          nonce: Number(n),
          to: null,
          value: value.toString(),
          data,
          gasLimit: gasLimit.toString(),
          maxFeePerGas: maxFeePerGas.toString(),
          maxPriorityFeePerGas: tip.toString(),
          accessList: [],
          summary: {
            router,
            token,
            swapValue: quote.swapValue.toString(),
            amountOutMin: quote.amountOutMin.toString(),
            expectedOut: quote.expectedOut.toString(),
            fee: quote.fee.toString(),
            feeRecipient: intent.feeRecipient,
            bribe: bribe.toString(),
            deadline: intent.expiry.toString(),
            onlyInBlock: onlyInBlock === null ? null : onlyInBlock.toString(),
          },
        },
      });
      pool.reserveNative += quote.swapValue;
      pool.reserveToken -= quote.grossOut;
    }
    return plan;
  }

  /**
   * A wallet intent's buy: the relayer's call of the executor with the wallet's signed intent.
   * The wallet pays `buyAmount + bribe` in wrapped native (it must hold and allow that much); the
   * relayer pays the gas. Null (and the intent failed) when it cannot go.
   */
  private walletIntentBuy(
    chain: Chain,
    intent: ClaimedIntent,
    r: {
      nonceSpent: Set<string>;
      wrapped: Map<string, { balance: bigint; allowance: bigint }>;
      nonce: Map<string, bigint>;
      balance: Map<string, bigint>;
      fail: (intent: ClaimedIntent, reason: FailureReason, detail: string, data?: IntentStatusData) => void;
      targetBlock: bigint;
      /** The buy goes right behind a pending launch, in its block. */
      inLaunchBlock: boolean;
      probeGas: bigint;
      maxFeePerGas: bigint;
      tip: bigint;
      token: string;
      router: string;
      quote: { swapValue: bigint; fee: bigint; amountOutMin: bigint; expectedOut: bigint };
    },
  ): { intent: ClaimedIntent; tx: UnsignedTransaction } | null {
    const { config } = chain;
    const wallets = chain.wallets;
    if (!wallets) {
      r.fail(
        intent,
        FailureReason.NoSigner,
        `chain ${config.chainId} has no executor contract or relayer (EXECUTOR_${config.chainId}, RELAYER_KEY_${config.chainId})`,
      );
      return null;
    }
    if (intent.firstOrFail && !r.inLaunchBlock) {
      // The executor buys a firstOrFail intent only in the block that gave the pool its first
      // liquidity; this launch was seen in a block already mined, so no later block can qualify.
      r.fail(intent, FailureReason.NotIncluded, 'firstOrFail: the executor buys only in the launch block, and the launch was seen in a mined block');
      return null;
    }
    if (r.nonceSpent.has(intent.id)) {
      r.fail(intent, FailureReason.NonceUsed, `nonce ${intent.nonce} of ${intent.wallet} is used or revoked on the executor`);
      return null;
    }
    const needs = BigInt(intent.buyAmount) + BigInt(intent.bribe);
    const held = r.wrapped.get(intent.wallet.toLowerCase())!;
    if (held.balance < needs) {
      r.fail(intent, FailureReason.InsufficientFunds, `the wallet holds ${held.balance} wei of wrapped native, the buy takes ${needs}`, {
        balance: String(held.balance),
        required: String(needs),
      });
      return null;
    }
    if (held.allowance < needs) {
      r.fail(intent, FailureReason.AllowanceTooLow, `the wallet allows the executor ${held.allowance} wei of wrapped native, the buy takes ${needs}`, {
        allowance: String(held.allowance),
        required: String(needs),
      });
      return null;
    }
    const from = wallets.relayerAddress;
    const gasLimit = (r.probeGas * 3n) / 2n + EXECUTOR_EXTRA_GAS;
    const gasCost = gasLimit * r.maxFeePerGas;
    const relayerLeft = r.balance.get(from)!;
    if (relayerLeft < gasCost) {
      r.fail(intent, FailureReason.InsufficientFunds, `the relayer ${from} holds ${relayerLeft} wei, the buy's gas needs up to ${gasCost}`, {
        balance: String(relayerLeft),
        required: String(gasCost),
      });
      return null;
    }
    r.balance.set(from, relayerLeft - gasCost);
    held.balance -= needs;
    held.allowance -= needs;
    const n = r.nonce.get(from)!;
    r.nonce.set(from, n + 1n);
    const terms = toBuyIntent({ ...intent, tokenAddress: r.token, nonce: intent.nonce! });
    return {
      intent,
      tx: {
        purpose: 'buy',
        type: 2,
        chainId: config.chainId,
        from,
        nonce: Number(n),
        to: getAddress(wallets.executor),
        value: '0',
        data: encodeExecute(terms, intent.signature!),
        gasLimit: gasLimit.toString(),
        maxFeePerGas: r.maxFeePerGas.toString(),
        maxPriorityFeePerGas: r.tip.toString(),
        accessList: [],
        summary: {
          router: r.router,
          token: r.token,
          swapValue: r.quote.swapValue.toString(),
          amountOutMin: terms.minOut.toString(),
          expectedOut: r.quote.expectedOut.toString(),
          fee: r.quote.fee.toString(),
          feeRecipient: intent.feeRecipient,
          bribe: terms.bribe.toString(),
          deadline: intent.expiry.toString(),
          onlyInBlock: null,
        },
      },
    };
  }

  /**
   * Buys with one intent's amount on the launch state, then sells what a tax-free buy would have
   * given, in one simulation: the buy and sell taxes (against the pool's quotes), whether selling
   * works at all, and the buy's gas. A token with a buy tax leaves less than that to sell: a
   * second simulation then sells what the buy really gave.
   */
  private async probe(chain: Chain, launch: LaunchedToken, block: bigint, pool: PoolState, intent: ClaimedIntent): Promise<TokenProbe | { reverted: string }> {
    const { config } = chain;
    const buyAmount = BigInt(intent.buyAmount);
    const fee = (buyAmount * BigInt(intent.feeBps ?? 0)) / 10_000n;
    const swapValue = buyAmount - fee;
    const plan: BuyPlan = {
      router: config.router,
      wrappedNative: config.wrappedNative,
      token: launch.token,
      wallet: intent.wallet,
      swapValue,
      amountOutMin: 0n,
      deadline: intent.expiry,
      fee,
      feeRecipient: intent.feeRecipient,
      bribe: BigInt(intent.bribe),
      onlyInBlock: null,
    };
    const wallet = intent.wallet.toLowerCase();
    const token = launch.token.toLowerCase();
    const value = swapValue + fee + plan.bribe;
    const buy = { from: wallet, to: null, data: buyInitCode(plan), value: value.toString() };
    const overrides = withBalance(launch.pending?.stateAfter ?? {}, wallet, value + SIMULATION_HEADROOM);
    const base = { chainId: config.chainId, blockNumber: block.toString(), overrides };
    const quoted = getAmountOut(swapValue, pool.reserveNative, pool.reserveToken);
    const sellCalls = (amount: bigint) => [
      { from: wallet, to: token, data: approveCalldata(config.router, amount) },
      { from: wallet, to: config.wrappedNative, data: balanceOfCalldata(wallet) },
      { from: wallet, to: config.router, data: routerSellCalldata(amount, token, config.wrappedNative, wallet, intent.expiry) },
      { from: wallet, to: config.wrappedNative, data: balanceOfCalldata(wallet) },
    ];
    const first = await this.simulation.simulate({
      ...base,
      calls: [
        { from: wallet, to: token, data: balanceOfCalldata(wallet) },
        buy,
        { from: wallet, to: token, data: balanceOfCalldata(wallet) },
        { from: wallet, to: launch.pair, data: GET_RESERVES },
        ...sellCalls(quoted),
      ],
    });
    const [before, bought, after, reservesAfter, ...sale] = first.calls as SimulationResult['calls'];
    if (bought!.status !== 1) return { reverted: bought!.error?.message ?? 'no reason given' };
    const received = BigInt(after!.result || '0x0') - BigInt(before!.result || '0x0');
    const buyTax = lossScaled(quoted, received);
    const buyGas = BigInt(bought!.gasUsed);
    const tokenIsToken0 = token < config.wrappedNative;
    const [a0, a1] = [word(reservesAfter!.result, 0), word(reservesAfter!.result, 1)];
    const [reserveToken, reserveNative] = tokenIsToken0 ? [a0, a1] : [a1, a0];
    const sellTaxOf = (calls: SimulationResult['calls'], amount: bigint): bigint | null => {
      const [approved, wBefore, sold, wAfter] = calls;
      if (approved!.status !== 1 || sold!.status !== 1) return null;
      const gotNative = BigInt(wAfter!.result || '0x0') - BigInt(wBefore!.result || '0x0');
      return lossScaled(getAmountOut(amount, reserveToken, reserveNative), gotNative);
    };
    let sellTax = sellTaxOf(sale, quoted);
    if (sellTax === null && received > 0n && received < quoted) {
      // Taxed on the way in: sell what the buy really gave.
      const second = await this.simulation.simulate({ ...base, calls: [buy, ...sellCalls(received)] });
      sellTax = sellTaxOf(second.calls.slice(1), received);
    }
    return { buyTax, sellTax: received > 0n ? sellTax : null, buyGas };
  }

  /** Which side of the stable pair is the native token, and the stable's decimals (read once). */
  private stableLayout(chain: Chain): Promise<{ nativeIsToken0: boolean; decimals: number } | null> {
    const pair = chain.config.stablePair;
    if (!pair) return Promise.resolve(null);
    chain.stable ??= (async () => {
      const [t0, t1] = await chain.rpc.all<string>([
        { method: 'eth_call', params: [{ to: pair, data: TOKEN0 }, 'latest'] },
        { method: 'eth_call', params: [{ to: pair, data: TOKEN1 }, 'latest'] },
      ]);
      const [token0, token1] = [`0x${t0!.slice(-40)}`, `0x${t1!.slice(-40)}`];
      const nativeIsToken0 = token0 === chain.config.wrappedNative;
      if (!nativeIsToken0 && token1 !== chain.config.wrappedNative) {
        this.logger.warn(`STABLE_PAIR_${chain.config.chainId} ${pair} does not hold the wrapped native token: minLiquidity cannot be priced`);
        return null;
      }
      const decimals = await chain.rpc.call<string>('eth_call', [{ to: nativeIsToken0 ? token1 : token0, data: DECIMALS }, 'latest']);
      return { nativeIsToken0, decimals: Number(BigInt(decimals)) };
    })().catch((err: unknown) => {
      chain.stable = undefined;
      throw err;
    });
    return chain.stable;
  }
}

function walletExecution(executor: string, relayerKey: string): WalletExecution {
  const relayer = new DevSigner([relayerKey]);
  return { executor, relayer, relayerAddress: relayer.addresses()[0]! };
}

/** An intent that fails this round, with the values its check measured (the notification's `data`). */
interface Failure {
  id: string;
  reason: FailureReason;
  detail: string;
  data?: IntentStatusData;
}

interface Plan {
  targetBlock: bigint;
  failures: Failure[];
  jobs: { intent: ClaimedIntent; tx: UnsignedTransaction }[];
  /** Intents handed back untouched (the pool is empty: a reorg undid the launch). */
  release: string[];
}

interface Expected {
  id: string;
  wallet: string;
  nonce: bigint;
}

/**
 * Settles and sends a round's buys while their signatures arrive, rather than after the last
 * one: the longest run of buys, in checking order, whose signatures are in is settled (one
 * transaction) and sent while the rest still sign. The order is kept across waves (the quotes
 * assume it). Once one of a wallet's buys cannot go out (its signing failed, or a cancel or the
 * expiry came first), the wallet's later buys are handed back to the next round: no nonce gap is
 * ever sent.
 */
class SubmissionPipeline {
  private expected: Expected[] = [];
  private next = 0;
  private readonly results = new Map<string, SignResult>();
  /** Per wallet, the lowest nonce that will not go out: nothing above it may be sent. */
  private readonly blockedFrom = new Map<string, bigint>();
  private failures: Failure[] = [];
  private ready: ToSubmit[] = [];
  private held: string[] = [];
  private flushing: Promise<void> | null = null;
  /** Every buy submitted in this round, in order. */
  private readonly bundled: Submission[] = [];
  private error: unknown = null;
  private readonly totals = { submitted: 0, failed: 0, deferred: 0 };

  constructor(
    private readonly chain: Chain,
    private readonly repo: ExecutionRepository,
    private readonly claimToken: string,
    private readonly targetBlock: bigint,
    private readonly logger: Logger,
    /** A pending launch's signed bytes: with relays, each wave's bundle is the launch and every buy sent so far. */
    private readonly behind?: string,
  ) {}

  fail(failures: Failure[]): void {
    this.failures.push(...failures);
  }

  release(ids: string[]): void {
    this.held.push(...ids);
  }

  /** The buys to come, in checking order (each wallet's nonces ascending). */
  expect(buys: Expected[]): void {
    this.expected = buys;
    this.kick();
  }

  signed(id: string, result: SignResult): void {
    this.results.set(id, result);
    this.advance();
    this.kick();
  }

  /** Waits for the last wave; what never became ready goes back to the queue. */
  async finish(): Promise<{ submitted: number; failed: number; deferred: number }> {
    this.advance();
    for (const b of this.expected.slice(this.next)) this.held.push(b.id);
    this.next = this.expected.length;
    this.kick();
    while (this.flushing) await this.flushing;
    if (this.error) throw this.error;
    return this.totals;
  }

  /** Moves the leading signed buys on: to `ready`, to `failures`, or (blocked) to `held`. */
  private advance(): void {
    while (this.next < this.expected.length) {
      const buy = this.expected[this.next]!;
      const result = this.results.get(buy.id);
      if (!result) break;
      this.next++;
      if (!result.ok) {
        this.failures.push({ id: buy.id, reason: result.reason, detail: result.detail });
        this.block(buy.wallet, buy.nonce);
      } else if (this.blocked(buy.wallet, buy.nonce)) {
        this.held.push(buy.id);
      } else {
        this.ready.push({ id: buy.id, wallet: buy.wallet, nonce: buy.nonce, raw: result.raw, hash: result.hash });
      }
    }
  }

  private blocked(wallet: string, nonce: bigint): boolean {
    const from = this.blockedFrom.get(wallet);
    return from !== undefined && nonce > from;
  }

  private block(wallet: string, nonce: bigint): void {
    const from = this.blockedFrom.get(wallet);
    if (from === undefined || nonce < from) this.blockedFrom.set(wallet, nonce);
  }

  private kick(): void {
    if (this.flushing || this.error) return;
    if (this.ready.length === 0 && this.failures.length === 0 && this.held.length === 0) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      this.kick();
    });
  }

  private async flush(): Promise<void> {
    // A wallet blocked since these became ready (an earlier wave found a buy cancelled): its later buys wait.
    const late = this.ready.filter((r) => this.blocked(r.wallet, r.nonce));
    const sendable = this.ready.filter((r) => !this.blocked(r.wallet, r.nonce));
    const [failures, held] = [this.failures, [...this.held, ...late.map((r) => r.id)]];
    [this.ready, this.failures, this.held] = [[], [], []];
    try {
      const { submitted, failed } = await this.repo.settleRound(this.claimToken, failures, sendable, held, this.targetBlock);
      this.totals.failed += failed;
      this.totals.deferred += held.length;
      for (const f of failures) this.logger.log(`intent ${f.id}: failed (${f.reason}: ${f.detail})`);
      const sent = new Set(submitted.map((s) => s.id));
      for (const r of sendable) if (!sent.has(r.id)) this.block(r.wallet, r.nonce); // cancelled or expired first
      if (submitted.length === 0) return;
      this.totals.submitted += submitted.length;
      const wave = submitted.map((s) => ({ intentId: s.id, raw: s.raw, hash: s.hash }));
      // Behind a pending launch through relays, every wave's bundle carries all the buys so far
      // (the launch can be in one bundle only: the latest, fullest one is the one to build).
      this.bundled.push(...wave);
      const bundled = this.behind && this.chain.submitter.kind === 'bundle';
      const refused = await this.chain.submitter.submit(bundled ? this.bundled : wave, this.targetBlock, bundled ? this.behind : undefined);
      if (this.chain.submitter.kind === 'rpc') {
        // The chain's node refused it (it will not be mined): the outcome is known now.
        const hashOf = new Map(submitted.map((s) => [s.id, s.hash]));
        const rejected: Outcome[] = [...refused]
          .filter(([, error]) => error !== null)
          .map(([id]) => ({ id, status: 'failed', reason: FailureReason.SubmissionRejected, executedAt: null, data: { txHash: hashOf.get(id)! } }));
        for (const s of submitted) {
          const error = refused.get(s.id);
          if (!error) continue;
          this.logger.warn(`intent ${s.id}: the node refused the buy: ${error}`);
          this.block(s.wallet, s.nonce); // the wallet's later buys would wait on this nonce forever
        }
        await this.repo.recordOutcomes(rejected);
      }
    } catch (err) {
      this.error = err;
    }
  }
}

/** `fn` over `items` with at most `limit` running at once; results in the items' order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
