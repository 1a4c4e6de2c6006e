import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DECIMALS, FailureReason, scaledRatio, type ExitTransaction, type ExitTrigger, type UnsignedTransaction } from '@tradeinfra/contracts';
import { id as eventId } from 'ethers';
import { ChainScheduler } from '../chain/chain-scheduler.js';
import { SimulationClient } from '../chain/simulation-client.js';
import { getAmountOut, getPairCall, getReservesCall, orientReserves, pairFromResult, type Reserves } from '../chain/uniswap-v2.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { WebhookClient } from '../common/webhook-client.js';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { APPROVE, approveCalldata, balanceOfCalldata, routerSellCalldata } from '../execution/buy.js';
import { type Block } from '../execution/buy-judgement.js';
import { EXECUTED_CHAINS, type ExecutedChain } from '../execution/chain-clients.js';
import { lossScaled } from '../execution/checks.js';
import { ExecutionRepository } from '../execution/execution.repository.js';
import { type Outcome } from '../execution/execution.types.js';
import { readHead } from '../execution/round-chain.js';
import { type SignResult } from '../execution/signed-buy.js';
import { WebhookSigner } from '../execution/signer.js';
import { type Submission } from '../execution/submitter.js';
import { PendingTransactions } from '../launch/pending/pending-transactions.js';
import { rebuildRawTransaction, type RpcTransaction } from '../launch/pending/raw-transaction.js';
import { BundleRelays } from '@tradeinfra/service-kit';
import { IntentsRepository } from '../intents/intents.repository.js';
import { SigningSecrets } from '../notifications/signing-secrets.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { firedPriceTrigger, pricePerToken, sellMinOut, sellOut } from './exit-price.js';
import { ExitsRepository, type FiredExit, type SubmittedExit, type WatchedExit } from './exits.repository.js';

/** Gas limits of an exit's transactions (a taxed token's transfer costs more than a plain one). */
const APPROVE_GAS = 100_000n;
const SELL_GAS = 600_000n;
const ALLOWANCE = '0xdd62ed3e';
/** swapExactTokensForETHSupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256) */
const SWAP_TOKENS_FOR_ETH = '0x791ac947';
const DEPOSIT = eventId('Deposit(address,uint256)');
const WITHDRAWAL = eventId('Withdrawal(address,uint256)');
const TRANSFER = eventId('Transfer(address,address,uint256)');

interface Receipt {
  status: string;
  blockNumber: string;
  logs: { address: string; topics: string[]; data: string }[];
}

/** An executed chain as the exit watcher keeps it between blocks. */
interface ExitChain extends ExecutedChain {
  lastHead: bigint;
  /** Per token (lowercase): its pair with the wrapped native token and its decimals, read once. */
  tokens: Map<string, Promise<{ pair: string; decimals: number } | null>>;
  /** Per sent exit, its approve (signed), sent again with the sell while it is not mined. */
  approvals: Map<string, string>;
  /** Per token with `onRug` exits, what the last block's evaluation left for the mempool watch. */
  rugWatch: Map<string, RugWatch>;
  /** The chain's pending transactions (null where its mempool is not followed). */
  pending: PendingTransactions | null;
  /** The chain's relays, for `[sells…, rug]` bundles (null without relays). */
  relays: BundleRelays | null;
}

/** A token's `onRug` exits as the last block priced them. */
interface RugWatch {
  pair: string;
  exits: WatchedExit[];
  amounts: Map<string, bigint>;
  pool: Reserves;
  loss: bigint;
  decimals: number;
  /** The block it was priced at (the rug is judged on it). */
  head: Block;
  /** The wallets' nonces and allowances, read ahead at that block (null: read them when firing). */
  prepared: Promise<SenderReads | null>;
}

/** What sending sells needs to know of their wallets: next nonce (lowercase wallet), allowance to the router (by exit id). */
interface SenderReads {
  nonces: Map<string, bigint>;
  allowances: Map<string, bigint>;
}

/** A pending transaction is a rug when the probe sale after it gives this much less (or reverts): 20 %. */
const RUG_LOSS_BPS = 2_000n;

/** One exit that fires this round, with what it sells and why. */
interface Firing {
  exit: WatchedExit;
  amount: bigint;
  trigger: ExitTrigger;
  price: bigint;
}

/**
 * Fires exits on price triggers (docs/design/exits.md): at each new block of an executed chain,
 * reads each watched token's pool, measures the sell loss by simulating a sale, prices every
 * exit's amount, and sells (claim → sign → mark submitted → send) those whose trigger holds,
 * highest bribe first; then follows the sent sells to one outcome each.
 */
@Injectable()
export class ExitWatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ExitWatcher.name);
  private readonly scheduler: ChainScheduler;
  private readonly chains = new Map<number, ExitChain>();
  private readonly signer: WebhookSigner;
  /** Latency of the last firing rounds: new block seen → last sell handed over (ms), for bench/. */
  readonly fireLatencies: number[] = [];

  constructor(
    private readonly repo: ExitsRepository,
    private readonly intents: IntentsRepository,
    private readonly execution: ExecutionRepository,
    private readonly simulation: SimulationClient,
    private readonly relay: OutboxRelay,
    secrets: SigningSecrets,
    webhooks: WebhookClient,
    @Inject(ENV) private readonly env: IntentServiceEnv,
    @Inject(EXECUTED_CHAINS) executed: ExecutedChain[],
    @Inject(CLOCK) private readonly now: Clock,
  ) {
    this.signer = new WebhookSigner({
      timeoutMs: env.SIGNER_TIMEOUT_MS,
      sign: (tenantId, timestamp, body) => secrets.sign(tenantId, timestamp, body),
      client: webhooks,
      now,
    });
    this.scheduler = new ChainScheduler('exits', env.LAUNCH_POLL_INTERVAL_MS, this.logger);
    for (const clients of executed) {
      const relays = clients.config.relays.length > 0 ? new BundleRelays(clients.config.relays, env.RELAY_AUTH_KEY ?? null) : null;
      const chain: ExitChain = { ...clients, lastHead: -1n, tokens: new Map(), approvals: new Map(), rugWatch: new Map(), pending: null, relays };
      if (clients.config.mempool !== 'off') {
        chain.pending = new PendingTransactions({
          wsUrls: clients.config.mempool === 'ws' ? clients.config.wsUrls : [],
          rpc: clients.rpc,
          pollMs: env.LAUNCH_POLL_INTERVAL_MS,
          onHashes: (hashes) => void this.onPending(chain, hashes, this.now()),
          logger: this.logger,
        });
      }
      this.chains.set(clients.config.chainId, chain);
      this.scheduler.add(clients.config.chainId, () => this.step(chain));
    }
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
      return false;
    }
    const done = await this.execution.withChainLock(chainId, async () => {
      if (submitted.length > 0) await this.follow(chain, head, submitted);
      if (waiting.length > 0) await this.evaluate(chain, head, waiting, seenAt);
      return true;
    });
    if (done !== null) chain.lastHead = number;
    return false;
  }

  private tokenInfo(chain: ExitChain, token: string): Promise<{ pair: string; decimals: number } | null> {
    let info = chain.tokens.get(token);
    if (!info) {
      info = (async () => {
        const [pairResult, decimals] = await chain.rpc.all<string>([
          getPairCall(chain.config.factory, token, chain.config.wrappedNative, 'latest'),
          { method: 'eth_call', params: [{ to: token, data: DECIMALS }, 'latest'] },
        ]);
        const pair = pairFromResult(pairResult);
        return pair ? { pair, decimals: Number(BigInt(decimals!)) } : null;
      })();
      info.catch(() => chain.tokens.delete(token));
      chain.tokens.set(token, info);
    }
    return info;
  }

  /** Prices every waiting exit at `head`, records the highs and entry prices, fires those whose trigger holds. */
  private async evaluate(chain: ExitChain, head: Block, waiting: WatchedExit[], seenAt: number): Promise<void> {
    const byToken = new Map<string, WatchedExit[]>();
    for (const exit of waiting) byToken.set(exit.token, [...(byToken.get(exit.token) ?? []), exit]);
    for (const token of chain.rugWatch.keys()) if (!byToken.has(token)) chain.rugWatch.delete(token);
    for (const [token, exits] of byToken) {
      try {
        await this.evaluateToken(chain, head, token, exits, seenAt);
      } catch (err) {
        this.logger.warn(`exits of ${token} on chain ${chain.config.chainId}: ${(err as Error).message}; trying again at the next block`);
      }
    }
  }

  private async evaluateToken(chain: ExitChain, head: Block, token: string, exits: WatchedExit[], seenAt: number): Promise<void> {
    const info = await this.tokenInfo(chain, token);
    if (!info) return;
    const at = BigInt(head.number);
    const all = exits.filter((e) => e.amount === null);
    const [reserves, ...balances] = await chain.rpc.all<string>([
      getReservesCall(info.pair, at),
      ...all.map((e) => ({ method: 'eth_call', params: [{ to: token, data: balanceOfCalldata(e.wallet) }, `0x${at.toString(16)}`] })),
    ]);
    const balanceOf = new Map(all.map((e, i) => [e.id, BigInt(balances[i]!)]));
    const pool = orientReserves(reserves!, token, chain.config.wrappedNative);
    const amounts = new Map(exits.map((e) => [e.id, e.amount ?? balanceOf.get(e.id)!]));
    const entries = await this.measureEntries(chain, exits, info.decimals);
    const priced = exits.filter((e) => amounts.get(e.id)! > 0n);
    if (priced.length === 0 || pool.reserveNative === 0n) return;
    const loss = await this.sellLoss(chain, head, token, pool, priced, amounts);
    if (loss === null) {
      // The sale reverts (a honeypot, trading off, a 100 % tax): nothing is sent; the exits wait (docs/api/exits.md).
      await this.repo.note(
        priced.filter((e) => e.statusReason !== FailureReason.Honeypot).map((e) => ({ id: e.id, reason: FailureReason.Honeypot, data: null })),
      );
      return;
    }
    const guarded = priced.filter((e) => e.onRug);
    if (guarded.length > 0) {
      const prepared = this.readSenders(chain, token, guarded).catch(() => null);
      chain.rugWatch.set(token, { pair: info.pair, exits: guarded, amounts, pool, loss, decimals: info.decimals, head, prepared });
    } else chain.rugWatch.delete(token);
    const highs: { id: string; price: bigint }[] = [];
    const firing: Firing[] = [];
    for (const exit of priced) {
      const amount = amounts.get(exit.id)!;
      const price = pricePerToken(sellOut(pool, amount, loss).out, amount, info.decimals);
      const highest = exit.highestPrice !== null && exit.highestPrice > price ? exit.highestPrice : price;
      if (highest !== exit.highestPrice) highs.push({ id: exit.id, price: highest });
      const triggers = { takeProfit: ratio(exit.takeProfit), stopLoss: ratio(exit.stopLoss), trailingStop: ratio(exit.trailingStop) };
      const trigger = firedPriceTrigger(triggers, price, exit.entryPrice ?? entries.get(exit.id) ?? null, highest);
      if (trigger) firing.push({ exit, amount, trigger, price });
    }
    await this.repo.recordPrices(
      [...entries].map(([id, price]) => ({ id, price })),
      highs,
    );
    if (firing.length > 0) await this.fire(chain, head, token, pool, loss, firing, seenAt);
  }

  /** The exits' wallets' next nonces and their allowances of `token` to the router. */
  private async readSenders(chain: ExitChain, token: string, exits: WatchedExit[]): Promise<SenderReads> {
    const tag = chain.submitter.kind === 'rpc' ? 'pending' : 'latest';
    const wallets = [...new Set(exits.map((e) => e.wallet.toLowerCase()))];
    const reads = await chain.rpc.all<string>([
      ...wallets.map((w) => ({ method: 'eth_getTransactionCount', params: [w, tag] })),
      ...exits.map((e) => ({ method: 'eth_call', params: [{ to: token, data: allowanceCalldata(e.wallet, chain.config.router) }, 'latest'] })),
    ]);
    return {
      nonces: new Map(wallets.map((w, i) => [w, BigInt(reads[i]!)])),
      allowances: new Map(exits.map((e, i) => [e.id, BigInt(reads[wallets.length + i]!)])),
    };
  }

  /** Entry prices of exits following a buy, measured from its receipt: wei into the swap per whole token received. */
  private async measureEntries(chain: ExitChain, exits: WatchedExit[], decimals: number): Promise<Map<string, bigint>> {
    const following = exits.filter((e) => e.entryPrice === null && e.followsTxHash !== null);
    const entries = new Map<string, bigint>();
    if (following.length === 0) return entries;
    const receipts = await chain.rpc.all<Receipt | null>(following.map((e) => ({ method: 'eth_getTransactionReceipt', params: [e.followsTxHash] })));
    following.forEach((exit, i) => {
      const receipt = receipts[i];
      if (!receipt || receipt.status !== '0x1') return;
      const weth = chain.config.wrappedNative.toLowerCase();
      const wallet = exit.wallet.toLowerCase().slice(2).padStart(64, '0');
      let paid = 0n;
      let received = 0n;
      for (const log of receipt.logs) {
        if (log.address.toLowerCase() === weth && log.topics[0] === DEPOSIT) paid += BigInt(log.data);
        if (log.address.toLowerCase() === exit.token && log.topics[0] === TRANSFER && log.topics[2]?.slice(2) === wallet) received += BigInt(log.data);
      }
      if (paid > 0n && received > 0n) entries.set(exit.id, pricePerToken(paid, received, decimals));
    });
    return entries;
  }

  /**
   * The token's sell loss (parts per 10^18 of the tax-free quote): one simulated sale of the
   * largest amount from its own wallet, on the head's state. Null when the sale reverts.
   */
  private async sellLoss(
    chain: ExitChain,
    head: Block,
    token: string,
    pool: Reserves,
    exits: WatchedExit[],
    amounts: Map<string, bigint>,
  ): Promise<bigint | null> {
    const probe = exits.reduce((a, b) => (amounts.get(b.id)! > amounts.get(a.id)! ? b : a));
    const amount = amounts.get(probe.id)!;
    const wallet = probe.wallet.toLowerCase();
    const weth = chain.config.wrappedNative;
    const wrapped = { from: wallet, to: weth, data: balanceOfCalldata(wallet) };
    const result = await this.simulation.simulate({
      chainId: chain.config.chainId,
      blockNumber: BigInt(head.number).toString(),
      calls: [
        { from: wallet, to: token, data: approveCalldata(chain.config.router, amount) },
        wrapped,
        { from: wallet, to: chain.config.router, data: routerSellCalldata(amount, token, weth, wallet, probe.expiry) },
        wrapped,
      ],
    });
    const [approved, before, sold, after] = result.calls;
    if (approved!.status !== 1 || sold!.status !== 1) return null;
    const got = BigInt(after!.result || '0x0') - BigInt(before!.result || '0x0');
    if (got <= 0n) return null;
    return lossScaled(getAmountOut(amount, pool.reserveToken, pool.reserveNative), got);
  }

  /**
   * One round of firing exits on a token: claimed, highest bribe first, each quoted on the pool
   * the sells before it leave; a quote under `minOut` waits; the rest signed (approve first when
   * the router's allowance is short), marked submitted, then sent for the next block.
   */
  private async fire(
    chain: ExitChain,
    head: Block,
    token: string,
    start: Reserves,
    loss: bigint,
    firing: Firing[],
    seenAt: number,
    /** Fired by this pending transaction (signed bytes; null when they could not be rebuilt): the sells go ahead of it. */
    rug: string | null = null,
    /** The wallets' nonces and allowances read ahead (the rug path), else read now. */
    prepared: SenderReads | null = null,
  ): Promise<void> {
    const claimToken = randomUUID();
    const t0 = this.now();
    const claimed = await this.repo.claim(
      firing.map((f) => f.exit.id),
      claimToken,
    );
    const ordered = firing
      .filter((f) => claimed.has(f.exit.id))
      .sort((a, b) => (a.exit.bribe === b.exit.bribe ? (a.exit.id < b.exit.id ? -1 : 1) : a.exit.bribe > b.exit.bribe ? -1 : 1));
    let pool = start;
    const quoted: (Firing & { minOut: bigint })[] = [];
    for (const f of ordered) {
      const { out, after } = sellOut(pool, f.amount, loss);
      if (f.exit.minOut !== null && out < f.exit.minOut) {
        await this.repo.release(claimToken, [f.exit.id], FailureReason.MinOutNotMet, { minOut: f.exit.minOut.toString(), quoted: out.toString() });
        continue;
      }
      quoted.push({ ...f, minOut: sellMinOut(out, f.exit.minOut, f.exit.maxSlippageBps) });
      pool = after;
    }
    if (quoted.length === 0) return;
    const target = BigInt(head.number) + 1n;
    const t1 = this.now();
    const ready = prepared && quoted.every((f) => prepared.allowances.has(f.exit.id) && prepared.nonces.has(f.exit.wallet.toLowerCase()));
    const senders = ready
      ? prepared
      : await this.readSenders(
          chain,
          token,
          quoted.map((f) => f.exit),
        );
    const nonces = new Map(senders.nonces);
    const baseFee = BigInt(head.baseFeePerGas ?? '0x0');
    const defaultTip = BigInt(this.env.EXECUTION_DEFAULT_GAS_TIP_WEI);
    const jobs = quoted.map((f) => {
      const wallet = f.exit.wallet.toLowerCase();
      const needsApprove = senders.allowances.get(f.exit.id)! < f.amount;
      const tip = (f.exit.gasTip ?? defaultTip) + (f.exit.bribe + SELL_GAS - 1n) / SELL_GAS;
      const fees = { maxPriorityFeePerGas: tip.toString(), maxFeePerGas: (2n * baseFee + tip).toString() };
      const tx = (to: string, data: string, gas: bigint, purpose: 'approve' | 'sell'): ExitTransaction => {
        const nonce = nonces.get(wallet)!;
        nonces.set(wallet, nonce + 1n);
        return {
          purpose,
          type: 2,
          chainId: chain.config.chainId,
          from: wallet,
          nonce: Number(nonce),
          to,
          value: '0',
          data,
          gasLimit: gas.toString(),
          ...fees,
          accessList: [],
          summary: null,
        };
      };
      const approve = needsApprove ? tx(token, approveFor(chain.config.router, f.amount), APPROVE_GAS, 'approve') : null;
      const sell = tx(chain.config.router, sellCalldata(f.amount, f.minOut, token, chain.config.wrappedNative, wallet, f.exit.expiry), SELL_GAS, 'sell');
      return { f, approve, sell };
    });
    const t2 = this.now();
    const signed = await Promise.all(
      jobs.map(async (job) => {
        const approve = job.approve ? await this.sign(chain, job.f.exit, job.approve, target) : null;
        if (approve && !approve.ok) return { job, approve, sell: approve };
        return { job, approve, sell: await this.sign(chain, job.f.exit, job.sell, target) };
      }),
    );
    const failures = signed.flatMap((s) => (s.sell.ok ? [] : [{ id: s.job.f.exit.id, reason: s.sell.reason, data: { detail: s.sell.detail.slice(0, 200) } }]));
    await this.repo.fail(claimToken, failures);
    const ok = signed.filter((s) => s.sell.ok);
    const fired: FiredExit[] = ok.map((s) => {
      const sell = s.sell as { raw: string; hash: string };
      return { id: s.job.f.exit.id, raw: sell.raw, hash: sell.hash, nonce: BigInt(s.job.sell.nonce), trigger: s.job.f.trigger, price: s.job.f.price };
    });
    const t3 = this.now();
    const marked = await this.repo.markSubmitted(claimToken, fired, target);
    const t4 = this.now();
    const sending = ok.filter((s) => marked.has(s.job.f.exit.id));
    for (const s of sending) if (s.approve?.ok) chain.approvals.set(s.job.f.exit.id, s.approve.raw);
    const sells = sending.map((s) => ({ id: s.job.f.exit.id, approve: s.approve?.ok ? s.approve.raw : null, sell: s.sell as { raw: string; hash: string } }));
    const refused = rug !== null && chain.relays ? await this.sendAhead(chain.relays, sells, rug, target) : await this.send(chain, sells, target);
    const t5 = this.now();
    this.fireLatencies.push(t5 - seenAt);
    if (this.fireLatencies.length > 1000) this.fireLatencies.shift();
    await this.intents.recordOutcomes(
      refused.map(([id, reason]) => ({
        id,
        status: 'failed',
        reason: FailureReason.SubmissionRejected,
        executedAt: null,
        data: { txHash: fired.find((f) => f.id === id)!.hash, detail: reason.slice(0, 200) },
      })),
    );
    this.relay.wake();
    this.logger.log(
      `exits of ${token} on chain ${chain.config.chainId}: ${sending.length} sell(s) sent for block ${target}, ${failures.length} failed, in ${t5 - seenAt} ms after ${rug ? 'the rug transaction' : 'the block'} was seen (before the round ${t0 - seenAt} ms, claim ${t1 - t0}, reads ${t2 - t1}, sign ${t3 - t2}, mark ${t4 - t3}, send ${t5 - t4})`,
    );
  }

  /**
   * `[sells…, rug]` in one bundle for `target` and a backup for the block after, to every relay:
   * the sells land in the rug's block, ahead of it. Refused: every sell, when no relay took either.
   */
  private async sendAhead(
    relays: BundleRelays,
    sells: { id: string; approve: string | null; sell: { raw: string } }[],
    rug: string,
    target: bigint,
  ): Promise<[string, string][]> {
    if (sells.length === 0) return [];
    const txs = [...sells.flatMap((s) => [...(s.approve ? [s.approve] : []), s.sell.raw]), rug];
    const answers = await relays.send([
      { txs, blockNumber: target },
      { txs, blockNumber: target + 1n },
    ]);
    if (answers.some((a) => a === null || a === undefined)) return [];
    return sells.map((s) => [s.id, answers[0] ?? 'no relay accepted the bundle']);
  }

  /**
   * Pending transactions of the chain: those touching a watched token or its pair (sent to
   * either, or naming the token in their input) are simulated before the probe sale; one that
   * makes it revert or give RUG_LOSS_BPS less fires the token's `onRug` exits ahead of it.
   */
  private async onPending(chain: ExitChain, hashes: string[], seenAt: number): Promise<void> {
    if (chain.rugWatch.size === 0) return;
    try {
      const txs = await chain.rpc.all<RpcTransaction | null>(hashes.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })));
      for (const tx of txs) {
        if (!tx || tx.blockNumber) continue;
        const to = tx.to?.toLowerCase() ?? '';
        const input = tx.input.toLowerCase();
        for (const [token, watch] of chain.rugWatch) {
          if (to !== token && to !== watch.pair && !input.includes(token.slice(2))) continue;
          await this.judgeRug(chain, tx, token, watch, seenAt);
        }
      }
    } catch (err) {
      this.logger.warn(`pending transactions on chain ${chain.config.chainId}: ${(err as Error).message}`);
    }
  }

  private async judgeRug(chain: ExitChain, tx: RpcTransaction, token: string, watch: RugWatch, seenAt: number): Promise<void> {
    const probe = watch.exits.reduce((a, b) => (watch.amounts.get(b.id)! > watch.amounts.get(a.id)! ? b : a));
    const amount = watch.amounts.get(probe.id)!;
    const wallet = probe.wallet.toLowerCase();
    const weth = chain.config.wrappedNative;
    const wrapped = { from: wallet, to: weth, data: balanceOfCalldata(wallet) };
    const simulate = (at: Block) =>
      this.simulation.simulate({
        chainId: chain.config.chainId,
        blockNumber: BigInt(at.number).toString(),
        calls: [
          { from: tx.from.toLowerCase(), to: tx.to, data: tx.input, value: BigInt(tx.value).toString() },
          { from: wallet, to: token, data: approveCalldata(chain.config.router, amount) },
          wrapped,
          { from: wallet, to: chain.config.router, data: routerSellCalldata(amount, token, weth, wallet, probe.expiry) },
          wrapped,
        ],
      });
    // Judged on the block the exits were priced at (its state is warm in the simulation service);
    // a transaction failing there may need a later block's state (an approval since): judged again on the head.
    let head = watch.head;
    let result = await simulate(head);
    if (result.calls[0]!.status !== 1) {
      const latest = await readHead(chain);
      if (BigInt(latest.number) <= BigInt(head.number)) return;
      head = latest;
      result = await simulate(head);
    }
    const [pending, approved, before, sold, after] = result.calls;
    // A pending transaction that would itself fail harms nobody.
    if (pending!.status !== 1) return;
    const expected = sellOut(watch.pool, amount, watch.loss).out;
    const got = approved!.status === 1 && sold!.status === 1 ? BigInt(after!.result || '0x0') - BigInt(before!.result || '0x0') : 0n;
    if (got * 10_000n > expected * (10_000n - RUG_LOSS_BPS)) return;
    let raw: string | null = null;
    try {
      raw = rebuildRawTransaction(tx);
    } catch {
      raw = null;
    }
    this.logger.log(
      `pending ${tx.hash} on chain ${chain.config.chainId} would leave ${got} of ${expected} wei for a sale of ${token}: selling ${watch.exits.length} onRug exit(s) ahead of it`,
    );
    chain.rugWatch.delete(token);
    const firing = watch.exits.map((exit) => {
      const held = watch.amounts.get(exit.id)!;
      return { exit, amount: held, trigger: 'on_rug' as const, price: pricePerToken(sellOut(watch.pool, held, watch.loss).out, held, watch.decimals) };
    });
    await this.fire(chain, head, token, watch.pool, watch.loss, firing, seenAt, raw, await watch.prepared);
  }

  private sign(chain: ExitChain, exit: WatchedExit, exitTx: ExitTransaction, target: bigint): Promise<SignResult> {
    // The signers take any EIP-1559 transaction; only a buy's carries a summary.
    const tx = exitTx as unknown as UnsignedTransaction;
    if (!exit.webhookUrl) return chain.devSigner.sign(tx);
    return this.signer.sign({
      intentId: exit.id,
      tenantId: exit.tenantId,
      webhookUrl: exit.webhookUrl,
      tx,
      launchBlock: target - 1n,
      targetBlock: target,
      protocol: exit.webhookProtocol,
      launch: { type: 'block', txHash: null, blockNumber: target - 1n },
    });
  }

  /** Sends the sells (each behind its approve) for `target`: the node in order, or one bundle each. Answers the refused ones. */
  private async send(
    chain: ExitChain,
    sells: { id: string; approve: string | null; sell: { raw: string; hash: string } }[],
    target: bigint,
  ): Promise<[string, string][]> {
    if (sells.length === 0) return [];
    const refused: [string, string][] = [];
    if (chain.submitter.kind === 'rpc') {
      const submissions: Submission[] = sells.flatMap((s) => [
        ...(s.approve ? [{ intentId: `${s.id}:approve`, raw: s.approve, hash: '' }] : []),
        { intentId: s.id, raw: s.sell.raw, hash: s.sell.hash },
      ]);
      const outcome = await chain.submitter.submit(submissions, target);
      for (const s of sells) {
        const why = outcome.get(s.id);
        if (why) refused.push([s.id, why]);
      }
      return refused;
    }
    await Promise.all(
      sells.map(async (s) => {
        const outcome = await chain.submitter.submit([{ intentId: s.id, raw: s.sell.raw, hash: s.sell.hash }], target, s.approve ?? undefined);
        const why = outcome.get(s.id);
        if (why) refused.push([s.id, why]);
      }),
    );
    return refused;
  }

  /** Sent sells at a new head: mined (completed, with the native received) or reverted; a used nonce fails; a bundle not included goes again. */
  private async follow(chain: ExitChain, head: Block, submitted: SubmittedExit[]): Promise<void> {
    const receipts = await chain.rpc.all<Receipt | null>(submitted.map((s) => ({ method: 'eth_getTransactionReceipt', params: [s.txHash] })));
    const outcomes: Outcome[] = [];
    const unmined: SubmittedExit[] = [];
    submitted.forEach((s, i) => {
      const receipt = receipts[i];
      if (!receipt) return void unmined.push(s);
      const data = { txHash: s.txHash, trigger: s.trigger, price: s.price };
      if (receipt.status !== '0x1') return void outcomes.push({ id: s.id, status: 'failed', reason: FailureReason.Reverted, executedAt: null, data });
      const weth = chain.config.wrappedNative.toLowerCase();
      const out = receipt.logs.filter((l) => l.address.toLowerCase() === weth && l.topics[0] === WITHDRAWAL).reduce((sum, l) => sum + BigInt(l.data), 0n);
      outcomes.push({
        id: s.id,
        status: 'completed',
        reason: null,
        executedAt: new Date(Number(BigInt(head.timestamp)) * 1000),
        data: { ...data, amountOut: out.toString() },
      });
    });
    if (unmined.length > 0) {
      const counts = await chain.rpc.all<string>(unmined.map((s) => ({ method: 'eth_getTransactionCount', params: [s.wallet, 'latest'] })));
      const again: SubmittedExit[] = [];
      unmined.forEach((s, i) => {
        if (BigInt(counts[i]!) > s.nonce) {
          outcomes.push({
            id: s.id,
            status: 'failed',
            reason: FailureReason.NonceUsed,
            executedAt: null,
            data: { txHash: s.txHash, trigger: s.trigger, price: s.price },
          });
        } else if (chain.submitter.kind === 'bundle' && BigInt(head.number) >= s.targetBlock) again.push(s);
      });
      if (again.length > 0) {
        const target = BigInt(head.number) + 1n;
        await this.send(
          chain,
          again.map((s) => ({ id: s.id, approve: chain.approvals.get(s.id) ?? null, sell: { raw: s.raw, hash: s.txHash } })),
          target,
        );
        await this.repo.retarget(
          again.map((s) => s.id),
          target,
        );
      }
    }
    for (const o of outcomes) chain.approvals.delete(o.id);
    if ((await this.intents.recordOutcomes(outcomes)) > 0) this.relay.wake();
  }
}

const ratio = (v: string | null) => (v === null ? null : scaledRatio(v));

/** ABI words by hand: a round encodes a few hundred of these (ethers' coder is ~10× slower, as buy.ts notes). */
const uintWord = (n: bigint) => n.toString(16).padStart(64, '0');
const addressWord = (a: string) => a.slice(2).toLowerCase().padStart(64, '0');

function allowanceCalldata(owner: string, spender: string): string {
  return ALLOWANCE + addressWord(owner) + addressWord(spender);
}

/** `approve(spender, amount)`. */
function approveFor(spender: string, amount: bigint): string {
  return APPROVE + addressWord(spender) + uintWord(amount);
}

/** The router's sale of `amountIn` tokens for native sent to `to`, giving at least `amountOutMin`. */
function sellCalldata(amountIn: bigint, amountOutMin: bigint, token: string, wrappedNative: string, to: string, deadline: bigint): string {
  // (uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline); path at offset 0xa0
  const head = uintWord(amountIn) + uintWord(amountOutMin) + uintWord(0xa0n) + addressWord(to) + uintWord(deadline);
  return SWAP_TOKENS_FOR_ETH + head + uintWord(2n) + addressWord(token) + addressWord(wrappedNative);
}
