import { Inject, Injectable, Logger } from '@nestjs/common';
import { abiWord, DECIMALS, GET_RESERVES, TOKEN0, TOKEN1 } from '@tradeinfra/contracts';
import { CLOCK, NatsConnections, NatsSimulationClient, type Clock } from '@tradeinfra/service-kit';
import { ENV, type PayoutServiceEnv, type PricedChain } from '../config/env.js';

const ZERO = '0x0000000000000000000000000000000000000000';
const SCALE = 10n ** 18n;

const word = abiWord;

/** A decimal string (at most 18 decimals) × 10^18, exactly. */
export function scaled(amount: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,18}))?$/.exec(amount);
  if (!match) throw new RangeError(`not a decimal with at most 18 decimals: ${amount}`);
  return BigInt(match[1]!) * SCALE + BigInt((match[2] ?? '').padEnd(18, '0'));
}

/** `value` (× 10^18) rounded down to cents, as decimal text ("1520.5", "0", "0.07"). */
export function centsText(value: bigint): string {
  const cents = value / 10n ** 16n;
  const whole = cents / 100n;
  const frac = (cents % 100n).toString().padStart(2, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

export interface Balance {
  chainId: number;
  asset: string;
  /** Decimal string in the asset's units. */
  amount: string;
}

/**
 * USD value of cashback balances: assets in PAYOUT_USD_ASSETS count one dollar each; a chain's
 * native coin (and its wrapped token) is priced from the chain's native/stable pair
 * (`STABLE_PAIR_<id>`, as the intent service prices `minLiquidity`), read through the simulation
 * service at the latest block and reused for PAYOUT_PRICE_CACHE_MS. Anything else, or a price
 * that cannot be read, is left out and named in `unpricedAssets`.
 */
@Injectable()
export class UsdPrices {
  private readonly logger = new Logger(UsdPrices.name);
  private readonly simulation: NatsSimulationClient;
  private readonly chains: Map<number, PricedChain>;
  private readonly cache = new Map<number, { at: number; price: Promise<bigint | null> }>();

  constructor(
    @Inject(ENV) private readonly env: PayoutServiceEnv,
    nats: NatsConnections,
    @Inject(CLOCK) private readonly now: Clock,
  ) {
    this.simulation = new NatsSimulationClient(nats);
    this.chains = new Map(env.pricedChains.map((c) => [c.chainId, c]));
  }

  async estimate(balances: Balance[]): Promise<{ estimatedUsd: string; unpricedAssets: string[] }> {
    let usd = 0n;
    const unpriced = new Set<string>();
    for (const b of balances) {
      const amount = scaled(b.amount);
      if (amount === 0n) continue;
      if (this.env.PAYOUT_USD_ASSETS.has(b.asset)) {
        usd += amount;
        continue;
      }
      const chain = this.chains.get(b.chainId);
      const price = chain?.nativeAssets.has(b.asset) ? await this.nativePrice(chain) : null;
      if (price === null) unpriced.add(b.asset);
      else usd += (amount * price) / SCALE;
    }
    return { estimatedUsd: centsText(usd), unpricedAssets: [...unpriced].sort() };
  }

  /** USD per native coin × 10^18, or null when the pair cannot be read. */
  private nativePrice(chain: PricedChain): Promise<bigint | null> {
    const cached = this.cache.get(chain.chainId);
    if (cached && this.now() - cached.at < this.env.PAYOUT_PRICE_CACHE_MS) return cached.price;
    const price = this.readPrice(chain).catch((err: unknown) => {
      this.logger.warn(`no USD price on chain ${chain.chainId}: ${(err as Error).message}`);
      this.cache.delete(chain.chainId);
      return null;
    });
    this.cache.set(chain.chainId, { at: this.now(), price });
    return price;
  }

  private async readPrice(chain: PricedChain): Promise<bigint | null> {
    const call = (to: string, data: string) => ({ from: ZERO, to, data });
    const first = await this.simulation.simulate({
      chainId: chain.chainId,
      calls: [call(chain.stablePair, TOKEN0), call(chain.stablePair, TOKEN1), call(chain.stablePair, GET_RESERVES)],
    });
    const [token0, token1, reserves] = first.calls;
    if (token0?.status !== 1 || token1?.status !== 1 || reserves?.status !== 1)
      throw new Error(`STABLE_PAIR_${chain.chainId} ${chain.stablePair} is not a Uniswap V2 pair`);
    const [t0, t1] = [token0.result, token1.result].map((r) => `0x${r.slice(-40)}`.toLowerCase());
    if (t0 !== chain.wrappedNative && t1 !== chain.wrappedNative)
      throw new Error(`STABLE_PAIR_${chain.chainId} does not hold the wrapped native token ${chain.wrappedNative}`);
    const nativeIs0 = t0 === chain.wrappedNative;
    const [r0, r1] = [word(reserves.result, 0), word(reserves.result, 1)];
    const [reserveNative, reserveStable] = nativeIs0 ? [r0, r1] : [r1, r0];
    const decimals = await this.simulation.simulate({ chainId: chain.chainId, calls: [call(nativeIs0 ? t1! : t0!, DECIMALS)] });
    if (decimals.calls[0]?.status !== 1) throw new Error(`the stable token of STABLE_PAIR_${chain.chainId} has no decimals()`);
    const stableDecimals = Number(BigInt(decimals.calls[0].result));
    if (reserveNative === 0n) return null;
    // reserveStable / 10^d USD for reserveNative / 10^18 native (wrapped native tokens have 18 decimals).
    return (reserveStable * SCALE * SCALE) / (reserveNative * 10n ** BigInt(stableDecimals));
  }
}
