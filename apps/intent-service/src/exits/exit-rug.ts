import { type Logger } from '@nestjs/common';
import { SIMULATION_MAX_CALLS } from '@tradeinfra/contracts';
import { type SimulationClient, type SimulationRequest } from '../chain/simulation-client.js';
import { type Clock } from '../common/clock.js';
import { approveCalldata, routerSellCalldata } from '../execution/buy.js';
import { type Block } from '../execution/buy-judgement.js';
import { readHead } from '../execution/round-chain.js';
import { rebuildRawTransaction, type RpcTransaction } from '../launch/pending/raw-transaction.js';
import { type ExitChain, type Firing, type RugWatch, type SellJobs } from './exit-chain.js';
import { type WatchedExit } from './exits.repository.js';
import { type FireStep } from './exit-fire.js';
import { pricePerToken, sellOut } from './exit-price.js';

/** A pending transaction harms a wallet when its sale after it gives this much less than its quote (or reverts): 20 %. */
const RUG_LOSS_BPS = 2_000n;

/** The `onRug` firings of a watched token: each exit sells what it held when the block priced it. */
export function rugFirings(watch: Pick<RugWatch, 'exits' | 'amounts' | 'pool' | 'loss' | 'decimals'>): Firing[] {
  return watch.exits.map((exit) => {
    const held = watch.amounts.get(exit.id)!;
    return { exit, amount: held, trigger: 'on_rug' as const, price: pricePerToken(sellOut(watch.pool, held, watch.loss).out, held, watch.decimals) };
  });
}

/** A wallet of a token's `onRug` exits as a pending transaction is judged for it. */
export interface JudgedWallet {
  /** Lowercase. */
  wallet: string;
  /** Its largest exit's amount: the sale simulated. */
  amount: bigint;
  /** The least that sale must give after the pending transaction: more than (1 − RUG_LOSS_BPS) of its quote. */
  least: bigint;
  expiry: bigint;
}

/** Wallets judged per simulation request: the pending transaction and two calls each within the simulation's limit. */
export const WALLETS_PER_JUDGEMENT = Math.floor((SIMULATION_MAX_CALLS - 1) / 2);

/** The wallets a pending transaction is judged for, in groups (one simulation request each). */
export interface Judgement {
  groups: JudgedWallet[][];
  /** The largest holder the transaction does not name: its sale stands for every wallet not named. */
  standIn: string | null;
  /** The transaction's sender (lowercase): its own exits are never fired by it. */
  sender: string;
}

/**
 * The wallets `tx` is judged for, each by the sale of its largest exit's amount: every wallet it
 * names in its input (a blacklist names whom it blocks), then the largest holder it does not name,
 * standing for all the others (what harms one unnamed holder — a liquidity removal, a tax hike,
 * trading off — harms them all); never its sender (a wallet's own sale is no rug). In groups of
 * WALLETS_PER_JUDGEMENT, each wallet quoted on the pool the sales before it in its group leave.
 */
export function judgedWallets(watch: Pick<RugWatch, 'exits' | 'amounts' | 'pool' | 'loss'>, tx: Pick<RpcTransaction, 'from' | 'input'>): Judgement {
  const sender = tx.from.toLowerCase();
  const input = tx.input.toLowerCase();
  const largest = new Map<string, { amount: bigint; expiry: bigint }>();
  for (const exit of watch.exits) {
    const wallet = exit.wallet.toLowerCase();
    const amount = watch.amounts.get(exit.id)!;
    if (wallet !== sender && amount > (largest.get(wallet)?.amount ?? 0n)) largest.set(wallet, { amount, expiry: exit.expiry });
  }
  const named = [...largest].filter(([w]) => input.includes(w.slice(2)));
  const others = [...largest].filter(([w]) => !input.includes(w.slice(2)));
  const standIn = others.length === 0 ? null : others.reduce((a, b) => (b[1].amount > a[1].amount ? b : a));
  const all = [...(standIn ? [standIn] : []), ...named];
  const groups: JudgedWallet[][] = [];
  for (let i = 0; i < all.length; i += WALLETS_PER_JUDGEMENT) {
    let pool = watch.pool;
    groups.push(
      all.slice(i, i + WALLETS_PER_JUDGEMENT).map(([wallet, { amount, expiry }]) => {
        const { out, after } = sellOut(pool, amount, watch.loss);
        pool = after;
        return { wallet, amount, least: (out * (10_000n - RUG_LOSS_BPS)) / 10_000n + 1n, expiry };
      }),
    );
  }
  return { groups, standIn: standIn?.[0] ?? null, sender };
}

/** The exits `harmed` (the judged wallets whose sale failed) fires: a harmed wallet's, and every unnamed wallet's when the stand-in is harmed. */
export function hitExits(exits: WatchedExit[], judgement: Judgement, harmed: Set<string>): WatchedExit[] {
  const judged = new Set(judgement.groups.flat().map((w) => w.wallet));
  const standInHarmed = judgement.standIn !== null && harmed.has(judgement.standIn);
  return exits.filter((e) => {
    const wallet = e.wallet.toLowerCase();
    if (wallet === judgement.sender) return false;
    return judged.has(wallet) ? harmed.has(wallet) : standInHarmed;
  });
}

/**
 * One simulation judging `tx` for a group of wallets: the pending transaction, then per wallet an
 * approve and a sale to the wrapped native token with `least` as its `amountOutMin`.
 */
export function judgeCalls(
  config: { router: string; wrappedNative: string },
  tx: RpcTransaction,
  token: string,
  wallets: JudgedWallet[],
): SimulationRequest['calls'] {
  return [
    { from: tx.from.toLowerCase(), to: tx.to, data: tx.input, value: BigInt(tx.value).toString() },
    ...wallets.flatMap((w) => [
      { from: w.wallet, to: token, data: approveCalldata(config.router, w.amount) },
      { from: w.wallet, to: config.router, data: routerSellCalldata(w.amount, token, config.wrappedNative, w.wallet, w.expiry, w.least) },
    ]),
  ];
}

/** The wallets whose approve or sale fails after the pending transaction (`results`: the calls after it, two per wallet). */
export function harmedWallets(wallets: JudgedWallet[], results: { status: number }[]): Set<string> {
  return new Set(wallets.filter((_, i) => results[2 * i]?.status !== 1 || results[2 * i + 1]?.status !== 1).map((w) => w.wallet));
}

/**
 * Step: the mempool watch. Pending transactions touching a watched token or its pair (sent to
 * either, or naming the token in their input) are simulated before sales (judgedWallets: each
 * wallet they name, and one holder for the rest; one request unless they name over 48). The
 * exits whose sale then reverts or gives RUG_LOSS_BPS less (a liquidity removal, a tax hike or
 * trading off: all; a blacklist: the named wallet's) fire ahead of it, built at the priced block;
 * the others stay watched.
 */
export class RugStep {
  constructor(
    private readonly simulation: Pick<SimulationClient, 'simulate'>,
    private readonly fire: Pick<FireStep, 'fire'>,
    private readonly now: Clock,
    private readonly logger: Pick<Logger, 'log' | 'warn'>,
  ) {}

  async onPending(chain: ExitChain, hashes: string[], seenAt: number): Promise<void> {
    if (chain.rugWatch.size === 0) return;
    try {
      const txs = await chain.rpc.all<RpcTransaction | null>(hashes.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })));
      for (const tx of txs) {
        if (!tx || tx.blockNumber) continue;
        const to = tx.to?.toLowerCase() ?? '';
        const input = tx.input.toLowerCase();
        for (const [token, watch] of chain.rugWatch) {
          if (to !== token && to !== watch.pair && !input.includes(token.slice(2))) continue;
          await this.judge(chain, tx, token, watch, seenAt);
        }
      }
    } catch (err) {
      this.logger.warn(`pending transactions on chain ${chain.config.chainId}: ${(err as Error).message}`);
    }
  }

  private async judge(chain: ExitChain, tx: RpcTransaction, token: string, watch: RugWatch, seenAt: number): Promise<void> {
    const t0 = this.now();
    const judgement = judgedWallets(watch, tx);
    const { groups } = judgement;
    if (groups.length === 0) return;
    const simulate = (at: Block) =>
      Promise.all(
        groups.map((wallets) =>
          this.simulation.simulate({
            chainId: chain.config.chainId,
            blockNumber: BigInt(at.number).toString(),
            calls: judgeCalls(chain.config, tx, token, wallets),
          }),
        ),
      );
    // Judged on the block the exits were priced at (its state is warm in the simulation service);
    // a transaction failing there may need a later block's state (an approval since): judged again on the head.
    let head = watch.head;
    let results = await simulate(head);
    if (results[0]!.calls[0]!.status !== 1) {
      const latest = await readHead(chain);
      if (BigInt(latest.number) <= BigInt(head.number)) return;
      head = latest;
      results = await simulate(head);
    }
    // A pending transaction that would itself fail harms nobody.
    if (results.some((r) => r.calls[0]!.status !== 1)) return;
    const harmed = new Set(groups.flatMap((wallets, i) => [...harmedWallets(wallets, results[i]!.calls.slice(1))]));
    const hit = hitExits(watch.exits, judgement, harmed);
    if (hit.length === 0) return;
    const fired = new Set(hit.map((e) => e.id));
    const spared = watch.exits.filter((e) => !fired.has(e.id));
    // The spared exits stay watched (unless a newer block's evaluation replaced the watch).
    if (chain.rugWatch.get(token) === watch) {
      if (spared.length === 0) chain.rugWatch.delete(token);
      else chain.rugWatch.set(token, { ...watch, exits: spared });
    }
    let raw: string | null = null;
    try {
      raw = rebuildRawTransaction(tx);
    } catch {
      raw = null;
    }
    this.logger.log(
      `pending ${tx.hash} on chain ${chain.config.chainId} would make the sale of ${token} revert or give ${RUG_LOSS_BPS / 100n} % less for ${harmed.size} of ` +
        `${groups.flat().length} wallet(s) judged (${judgement.standIn !== null && harmed.has(judgement.standIn) ? 'the stand-in among them: every wallet it does not name' : 'named wallets only'}) ` +
        `(judged in ${this.now() - t0} ms, ${groups.length} simulation(s), ${t0 - seenAt} ms after it was seen): selling ${hit.length} onRug exit(s) ahead of it`,
    );
    const firings = rugFirings({ ...watch, exits: hit });
    if (chain.relays === null) {
      // No relay puts the sells ahead: they go to the node, outbidding the rug's priority fee (docs/design/exits.md).
      const minTip = rugTip(tx, BigInt(head.baseFeePerGas ?? '0x0')) + 1n;
      return this.fire.fire(chain, head, token, watch.pool, watch.loss, firings, seenAt, { raw: null, minTip });
    }
    const ready = BigInt(head.number) === BigInt(watch.head.number) ? await watch.ready : null;
    await this.fire.fire(chain, head, token, watch.pool, watch.loss, firings, seenAt, { raw }, ready && only(ready, new Set(hit.map((e) => e.id))));
  }
}

/**
 * The round built ahead, reduced to the exits `ids` (whole wallets: their nonces stay in order).
 * Their `amountOutMin`s were quoted behind the sells left out, so they are lower than a fresh
 * quote's: the sale gives more, never less.
 */
function only(ready: SellJobs, ids: Set<string>): SellJobs {
  return { head: ready.head, jobs: ready.jobs.filter((j) => ids.has(j.f.exit.id)), short: ready.short.filter((s) => ids.has(s.id)) };
}

/** The priority fee per gas a pending transaction pays over `baseFee`. */
function rugTip(tx: RpcTransaction, baseFee: bigint): bigint {
  if (tx.maxPriorityFeePerGas !== undefined && tx.maxFeePerGas !== undefined) {
    const cap = BigInt(tx.maxFeePerGas) - baseFee;
    const tip = BigInt(tx.maxPriorityFeePerGas);
    return tip < cap ? tip : cap;
  }
  return tx.gasPrice !== undefined && BigInt(tx.gasPrice) > baseFee ? BigInt(tx.gasPrice) - baseFee : 0n;
}
