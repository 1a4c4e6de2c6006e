import { scaledRatio } from '@tradeinfra/contracts';
import { type SimulationClient } from '../chain/simulation-client.js';
import { getAmountOut, getReservesCall, orientReserves, type Reserves } from '../chain/uniswap-v2.js';
import { approveCalldata, balanceOfCalldata, routerSellCalldata } from '../execution/buy.js';
import { type Block } from '../execution/buy-judgement.js';
import { lossScaled } from '../execution/checks.js';
import { DEPOSIT, TRANSFER, type Receipt } from './exit-calldata.js';
import { readSenders, tokenInfo, type ExitChain, type Firing, type SenderReads, type TokenInfo } from './exit-chain.js';
import { firedPriceTrigger, pricePerToken, sellOut } from './exit-price.js';
import { type WatchedExit } from './exits.repository.js';

/** A token's waiting exits priced at one block. */
export interface PricedToken {
  info: TokenInfo;
  pool: Reserves;
  /** Per exit id: what it sells (its amount, or the balance for "all"). */
  amounts: Map<string, bigint>;
  /** The exits holding something to sell. */
  priced: WatchedExit[];
  /** The token's sell loss (parts per 10^18 of the tax-free quote); null: the sale reverts (nothing is sent). */
  loss: bigint | null;
  /** Entry prices measured from followed buys, and the new highest prices. */
  entries: Map<string, bigint>;
  highs: { id: string; price: bigint }[];
  /** The exits whose price trigger holds. */
  firing: Firing[];
  /** The priced exits' wallets' nonces and allowances, read while the loss is measured (for the sells built at this block). */
  senders: Promise<SenderReads>;
}

/**
 * Step: prices a token's waiting exits at a block: reads the pool and the "all" balances, measures
 * the entry prices of exits following a buy, the sell loss by one simulated sale, then each
 * exit's price, highest price and the trigger that holds.
 */
export class PricingStep {
  constructor(private readonly simulation: Pick<SimulationClient, 'simulate'>) {}

  /** Null: the token has no pair, nothing to sell, or an empty pool. */
  async price(chain: ExitChain, head: Block, token: string, exits: WatchedExit[]): Promise<PricedToken | null> {
    const info = await tokenInfo(chain, token);
    if (!info) return null;
    const at = `0x${BigInt(head.number).toString(16)}`;
    const all = exits.filter((e) => e.amount === null);
    const [[reserves, ...balances], entries] = await Promise.all([
      chain.rpc.all<string>([
        getReservesCall(info.pair, BigInt(head.number)),
        ...all.map((e) => ({ method: 'eth_call', params: [{ to: token, data: balanceOfCalldata(e.wallet) }, at] })),
      ]),
      this.measureEntries(chain, exits, info.decimals),
    ]);
    const balanceOf = new Map(all.map((e, i) => [e.id, BigInt(balances[i]!)]));
    const pool = orientReserves(reserves!, token, chain.config.wrappedNative);
    const amounts = new Map(exits.map((e) => [e.id, e.amount ?? balanceOf.get(e.id)!]));
    const priced = exits.filter((e) => amounts.get(e.id)! > 0n);
    if (priced.length === 0 || pool.reserveNative === 0n) return null;
    const senders = readSenders(chain, token, priced);
    senders.catch(() => undefined); // its user sees the error
    const loss = await this.sellLoss(chain, head, token, pool, priced, amounts);
    const result: PricedToken = { info, pool, amounts, priced, loss, entries, highs: [], firing: [], senders };
    if (loss === null) return result;
    for (const exit of priced) {
      const amount = amounts.get(exit.id)!;
      const price = pricePerToken(sellOut(pool, amount, loss).out, amount, info.decimals);
      const highest = exit.highestPrice !== null && exit.highestPrice > price ? exit.highestPrice : price;
      if (highest !== exit.highestPrice) result.highs.push({ id: exit.id, price: highest });
      const triggers = { takeProfit: ratio(exit.takeProfit), stopLoss: ratio(exit.stopLoss), trailingStop: ratio(exit.trailingStop) };
      const trigger = firedPriceTrigger(triggers, price, exit.entryPrice ?? entries.get(exit.id) ?? null, highest);
      if (trigger) result.firing.push({ exit, amount, trigger, price });
    }
    return result;
  }

  /** Entry prices of exits following a buy, measured from its receipt: wei into the swap per whole token received. */
  private async measureEntries(chain: ExitChain, exits: WatchedExit[], decimals: number): Promise<Map<string, bigint>> {
    const following = exits.filter((e) => e.entryPrice === null && e.followsTxHash !== null);
    const entries = new Map<string, bigint>();
    if (following.length === 0) return entries;
    const receipts = await chain.rpc.all<Receipt | null>(following.map((e) => ({ method: 'eth_getTransactionReceipt', params: [e.followsTxHash] })));
    const weth = chain.config.wrappedNative.toLowerCase();
    following.forEach((exit, i) => {
      const receipt = receipts[i];
      if (!receipt || receipt.status !== '0x1') return;
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
   * The token's sell loss: one simulated sale of the largest amount from its own wallet, on the
   * head's state. Null when the sale reverts (a honeypot, trading off, a 100 % tax).
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
}

const ratio = (v: string | null) => (v === null ? null : scaledRatio(v));
