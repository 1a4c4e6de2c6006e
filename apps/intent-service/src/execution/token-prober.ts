import { Injectable } from '@nestjs/common';
import { id } from 'ethers';
import { GET_RESERVES, type SimulationResult } from '@tradeinfra/contracts';
import { type WatchedChain } from '../config/env.js';
import { approveCalldata, balanceOfCalldata, buyInitCode, routerSellCalldata, type BuyPlan } from './buy.js';
import { getAmountOut } from '../chain/uniswap-v2.js';
import { lossScaled, type PoolState, type TokenProbe } from './checks.js';
import { type ClaimedIntent, type LaunchedToken, type PendingLaunchState } from './execution.types.js';
import { SimulationClient, type SimulationRequest } from '../chain/simulation-client.js';
import { orientReserves } from '../chain/uniswap-v2.js';
import { withBalance } from './launch-state.js';

/** The simulated wallet gets this much more than it spends (gas is free in simulation, but be safe). */
const SIMULATION_HEADROOM = 10n ** 18n;

/** A probe's answer: the token's taxes and buy gas, or the simulated buy's revert reason. */
export type ProbeResult = TokenProbe | { reverted: string };

/** What the prober needs of the simulation service (injected: tests pass a fake). */
export type Simulate = Pick<SimulationClient, 'simulate'>;

/** How many of a token's first claimable intents a probe made before the claim looks through for one to probe with. */
const PROBE_CANDIDATES = 20;

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

/** The intent a claim of the token would probe with now (probeIntent of the first it would take), without claiming anything. */
export async function claimableProbeIntent(
  intents: { claimableHead(chainId: number, token: string, limit: number): Promise<ClaimedIntent[]> },
  chainId: number,
  token: string,
): Promise<ClaimedIntent | null> {
  return probeIntent(await intents.claimableHead(chainId, token, PROBE_CANDIDATES));
}

/** What a probe's calls are made of, for one intent's amounts (wallet and token lowercase). */
export interface ProbePlan {
  wallet: string;
  token: string;
  swapValue: bigint;
  /** The buy (the intent's init code, amountOutMin 0) and what it sends. */
  buy: { from: string; to: null; data: string; value: string };
  value: bigint;
  /** The wallet's balance of the token. */
  balance: { from: string; to: string; data: string };
  /** [approve, wrapped before, sell `amount` through the router, wrapped after]. */
  sellCalls(amount: bigint): { from: string; to: string; data: string }[];
}

export function probePlan(config: Pick<WatchedChain, 'wrappedNative'> & { router: string }, token: string, intent: ClaimedIntent): ProbePlan {
  const buyAmount = BigInt(intent.buyAmount);
  const fee = (buyAmount * BigInt(intent.feeBps ?? 0)) / 10_000n;
  const swapValue = buyAmount - fee;
  const plan: BuyPlan = {
    router: config.router,
    wrappedNative: config.wrappedNative,
    token,
    wallet: intent.wallet,
    swapValue,
    amountOutMin: 0n,
    deadline: intent.expiry,
    fee,
    feeRecipient: intent.feeRecipient,
    bribe: BigInt(intent.bribe),
    onlyInBlock: null,
    onlyInLaunchBlockOf: null,
  };
  const wallet = intent.wallet.toLowerCase();
  const lower = token.toLowerCase();
  const value = swapValue + fee + plan.bribe;
  return {
    wallet,
    token: lower,
    swapValue,
    value,
    buy: { from: wallet, to: null, data: buyInitCode(plan), value: value.toString() },
    balance: { from: wallet, to: lower, data: balanceOfCalldata(wallet) },
    sellCalls: (amount) => [
      { from: wallet, to: lower, data: approveCalldata(config.router, amount) },
      { from: wallet, to: config.wrappedNative, data: balanceOfCalldata(wallet) },
      { from: wallet, to: config.router, data: routerSellCalldata(amount, lower, config.wrappedNative, wallet, intent.expiry) },
      { from: wallet, to: config.wrappedNative, data: balanceOfCalldata(wallet) },
    ],
  };
}

/** What the buyer is given in simulation: what the buy sends and some headroom. */
export const probeBalance = (plan: ProbePlan) => plan.value + SIMULATION_HEADROOM;

/** The probe of a token from its reads; null when selling what the buy really gave needs another simulation. */
function probeOf(read: ReturnType<typeof readProbe>, quoted: bigint): ProbeResult | null {
  if ('reverted' in read) return read;
  const { received, buyTax, buyGas, sellTax } = read;
  if (sellTax === null && received > 0n && received < quoted) return null;
  return { buyTax, sellTax: received > 0n ? sellTax : null, buyGas };
}

/** `Sync(uint112,uint112)`: a pair's reserves after a change. */
const SYNC = id('Sync(uint112,uint112)');

/**
 * Reads the probe run right behind a pending launch in its own simulation ([balance before, buy,
 * balance after, approve, wrapped before, sell `quoted`, wrapped after]; the pool from the pair's
 * last `Sync`). Null when it cannot tell (docs/design/pending-launch-path.md).
 */
export function readProbeBehindLaunch(
  calls: SimulationResult['calls'],
  quoted: bigint,
  token: string,
  wrappedNative: string,
  pair: string,
): ProbeResult | null {
  const [before, bought, after, ...sale] = calls;
  if (!before || !bought || !after || sale.length !== 4) return null;
  // The pool after the buy (readProbe reads it only from a buy that went through).
  const sync = [...bought.logs].reverse().find((l) => l.address.toLowerCase() === pair.toLowerCase() && l.topics[0] === SYNC);
  if (bought.status === 1 && !sync) return null;
  const reserves = { ...bought, result: sync?.data ?? '0x' };
  return probeOf(readProbe([before, bought, after, reserves, ...sale], quoted, token, wrappedNative), quoted);
}

/** The pool a pending `addLiquidity` leaves, as the detector read it from the launch's logs. */
export interface LeftPool {
  token: string;
  quote: string;
  pair: string;
  tokenReserve: bigint;
  quoteReserve: bigint;
}

/**
 * The token probe to run right behind a pending `addLiquidity` of `token` (adding `added`) in the
 * launch's own simulation, with `intent`'s amounts: its calls, and how to read them. The probe
 * counts only if the launch leaves exactly the pool its calldata says (docs/design/pending-launches.md).
 */
export function probeBehindLaunch(
  config: Pick<WatchedChain, 'wrappedNative'> & { router: string },
  intent: ClaimedIntent,
  added: { token: string; tokenAmount: bigint; nativeAmount: bigint },
): { calls: SimulationRequest['calls']; read(results: SimulationResult['calls'], launches: LeftPool[]): Map<string, ProbeResult> } {
  const { token, tokenAmount, nativeAmount } = added;
  const weth = config.wrappedNative.toLowerCase();
  const p = probePlan(config, token, intent);
  const quoted = getAmountOut(p.swapValue, nativeAmount, tokenAmount);
  const funded = { accounts: { [p.wallet]: { balance: probeBalance(p).toString() } } };
  return {
    calls: [{ ...p.balance, overrides: funded }, p.buy, p.balance, ...p.sellCalls(quoted)],
    read: (results, launches) => {
      const l = launches.find((x) => x.token === token && x.quote === weth);
      if (!l || l.tokenReserve !== tokenAmount || l.quoteReserve !== nativeAmount) return new Map();
      const probe = readProbeBehindLaunch(results, quoted, token, weth, l.pair);
      // A reverted buy may be this intent's own doing (its expiry passed since it was picked): the round's own probe says.
      return probe && !('reverted' in probe) ? new Map<string, ProbeResult>([[token, probe]]) : new Map();
    },
  };
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
    const p = probePlan(config, launch.token, intent);
    // On the state a pending launch leaves (head + launch transaction), else the head's.
    const overrides = withBalance(launch.pending?.stateAfter ?? {}, p.wallet, probeBalance(p));
    const base = { chainId: config.chainId, blockNumber: block.toString(), overrides };
    const quoted = getAmountOut(p.swapValue, pool.reserveNative, pool.reserveToken);
    const first = await this.simulation.simulate({
      ...base,
      calls: [p.balance, p.buy, p.balance, { from: p.wallet, to: launch.pair, data: GET_RESERVES }, ...p.sellCalls(quoted)],
    });
    const read = readProbe(first.calls, quoted, p.token, config.wrappedNative);
    const probed = probeOf(read, quoted);
    if (probed || 'reverted' in read) return probed ?? read;
    // Taxed on the way in: sell what the buy really gave.
    const second = await this.simulation.simulate({ ...base, calls: [p.buy, ...p.sellCalls(read.received)] });
    return { buyTax: read.buyTax, sellTax: sellTaxOf(second.calls.slice(1), read.received, read.after), buyGas: read.buyGas };
  }
}
