import { Injectable } from '@nestjs/common';
import { GET_RESERVES, type SimulationResult } from '@tradeinfra/contracts';
import { type WatchedChain } from '../config/env.js';
import { approveCalldata, balanceOfCalldata, buyInitCode, getAmountOut, routerSellCalldata, type BuyPlan } from './buy.js';
import { lossScaled, type PoolState, type TokenProbe } from './checks.js';
import { type ClaimedIntent, type LaunchedToken, type PendingLaunchState } from './execution.types.js';
import { SimulationClient } from './simulation-client.js';
import { orientReserves } from './uniswap-v2.js';
import { withBalance } from './launch-state.js';

/** The simulated wallet gets this much more than it spends (gas is free in simulation, but be safe). */
const SIMULATION_HEADROOM = 10n ** 18n;

/** A probe's answer: the token's taxes and buy gas, or the simulated buy's revert reason. */
export type ProbeResult = TokenProbe | { reverted: string };

/** What the prober needs of the simulation service (injected: tests pass a fake). */
export type Simulate = Pick<SimulationClient, 'simulate'>;

/** The intent whose amount probes the token: the first with something to buy after its fee (none: null). */
export function probeIntent<T extends Pick<ClaimedIntent, 'buyAmount' | 'feeBps'>>(intents: T[]): T | null {
  return intents.find((i) => BigInt(i.buyAmount) - (BigInt(i.buyAmount) * BigInt(i.feeBps ?? 0)) / 10_000n > 0n) ?? null;
}

/**
 * Reads the first simulation's calls: [balance before, buy, balance after, reserves after,
 * approve, wrapped before, sell, wrapped after]. Pure.
 */
export function readProbe(
  calls: SimulationResult['calls'],
  quoted: bigint,
  token: string,
  wrappedNative: string,
): { reverted: string } | { received: bigint; buyTax: bigint; buyGas: bigint; after: PoolState; sellTax: bigint | null } {
  const [before, bought, after, reservesAfter, ...sale] = calls;
  if (bought!.status !== 1) return { reverted: bought!.error?.message ?? 'no reason given' };
  const received = BigInt(after!.result || '0x0') - BigInt(before!.result || '0x0');
  const pool = { ...orientReserves(reservesAfter!.result, token, wrappedNative), liquidityCents: null };
  return { received, buyTax: lossScaled(quoted, received), buyGas: BigInt(bought!.gasUsed), after: pool, sellTax: sellTaxOf(sale, quoted, pool) };
}

/** The sell tax from [approve, wrapped before, sell, wrapped after] (null: the sale failed). Pure. */
export function sellTaxOf(calls: SimulationResult['calls'], amount: bigint, pool: PoolState): bigint | null {
  const [approved, wBefore, sold, wAfter] = calls;
  if (approved!.status !== 1 || sold!.status !== 1) return null;
  const gotNative = BigInt(wAfter!.result || '0x0') - BigInt(wBefore!.result || '0x0');
  return lossScaled(getAmountOut(amount, pool.reserveToken, pool.reserveNative), gotNative);
}

/**
 * Probes a launched token with the simulation service: buys with one intent's amount on the
 * launch state, then sells what a tax-free buy would have given, in one simulation: the buy and
 * sell taxes (against the pool's quotes), whether selling works at all, and the buy's gas. A
 * token with a buy tax leaves less than that to sell: a second simulation then sells what the
 * buy really gave.
 */
@Injectable()
export class TokenProber {
  constructor(private readonly simulation: SimulationClient) {}

  async probe(
    config: Pick<WatchedChain, 'chainId' | 'wrappedNative'> & { router: string },
    launch: Pick<LaunchedToken, 'token' | 'pair'> & { pending?: Pick<PendingLaunchState, 'stateAfter'> | null },
    block: bigint,
    pool: PoolState,
    intent: ClaimedIntent,
  ): Promise<ProbeResult> {
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
    // On the state a pending launch leaves (head + launch transaction), else the head's.
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
    const read = readProbe(first.calls, quoted, token, config.wrappedNative);
    if ('reverted' in read) return read;
    const { received, buyTax, buyGas } = read;
    let sellTax = read.sellTax;
    if (sellTax === null && received > 0n && received < quoted) {
      // Taxed on the way in: sell what the buy really gave.
      const second = await this.simulation.simulate({ ...base, calls: [buy, ...sellCalls(received)] });
      sellTax = sellTaxOf(second.calls.slice(1), received, read.after);
    }
    return { buyTax, sellTax: received > 0n ? sellTax : null, buyGas };
  }
}
