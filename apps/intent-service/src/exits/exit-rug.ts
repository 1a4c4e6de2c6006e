import { type Logger } from '@nestjs/common';
import { type SimulationClient } from '../chain/simulation-client.js';
import { type Clock } from '../common/clock.js';
import { approveCalldata, balanceOfCalldata, routerSellCalldata } from '../execution/buy.js';
import { type Block } from '../execution/buy-judgement.js';
import { readHead } from '../execution/round-chain.js';
import { rebuildRawTransaction, type RpcTransaction } from '../launch/pending/raw-transaction.js';
import { type ExitChain, type Firing, type RugWatch } from './exit-chain.js';
import { type FireStep } from './exit-fire.js';
import { pricePerToken, sellOut } from './exit-price.js';

/** A pending transaction is a rug when the probe sale after it gives this much less (or reverts): 20 %. */
const RUG_LOSS_BPS = 2_000n;

/** The `onRug` firings of a watched token: each exit sells what it held when the block priced it. */
export function rugFirings(watch: Pick<RugWatch, 'exits' | 'amounts' | 'pool' | 'loss' | 'decimals'>): Firing[] {
  return watch.exits.map((exit) => {
    const held = watch.amounts.get(exit.id)!;
    return { exit, amount: held, trigger: 'on_rug' as const, price: pricePerToken(sellOut(watch.pool, held, watch.loss).out, held, watch.decimals) };
  });
}

/**
 * Step: the mempool watch. Pending transactions touching a watched token or its pair (sent to
 * either, or naming the token in their input) are simulated before a probe sale; one that makes
 * it revert or give RUG_LOSS_BPS less (a liquidity removal, a tax hike, a blacklist, trading
 * off) fires the token's `onRug` exits ahead of it, with the sells built at the priced block.
 */
export class RugStep {
  constructor(
    private readonly simulation: Pick<SimulationClient, 'simulate'>,
    private readonly fire: FireStep,
    private readonly now: Clock,
    private readonly logger: Logger,
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
    chain.rugWatch.delete(token);
    let raw: string | null = null;
    try {
      raw = rebuildRawTransaction(tx);
    } catch {
      raw = null;
    }
    this.logger.log(
      `pending ${tx.hash} on chain ${chain.config.chainId} would leave ${got} of ${expected} wei for a sale of ${token} (judged in ${this.now() - t0} ms, ` +
        `${t0 - seenAt} ms after it was seen): selling ${watch.exits.length} onRug exit(s) ahead of it`,
    );
    if (chain.relays === null) {
      // No relay puts the sells ahead: they go to the node, outbidding the rug's priority fee (docs/design/exits.md).
      const minTip = rugTip(tx, BigInt(head.baseFeePerGas ?? '0x0')) + 1n;
      return this.fire.fire(chain, head, token, watch.pool, watch.loss, rugFirings(watch), seenAt, { raw: null, minTip });
    }
    const ready = BigInt(head.number) === BigInt(watch.head.number) ? await watch.ready : null;
    await this.fire.fire(chain, head, token, watch.pool, watch.loss, rugFirings(watch), seenAt, { raw }, ready);
  }
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
