import { DEX_DEFAULTS, NATIVE_ASSETS, NATIVE_PRICED_ASSETS } from '@tradeinfra/contracts';
import { CHAIN_RPC_ENV, envInt as int, HEALTH_ENV, loadServiceEnv, LOG_ENV, NATS_ENV, POSTGRES_ENV, urlList } from '@tradeinfra/service-kit';
import { z } from 'zod';
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

const EnvSchema = z.object({
  ...NATS_ENV,
  ...HEALTH_ENV,
  ...POSTGRES_ENV,
  /** RPC_MAX_LAG_BLOCKS, RPC_CHECK_INTERVAL_MS, RPC_CHECK_TIMEOUT_MS: how a chain's several endpoints are chosen between. */
  ...CHAIN_RPC_ENV,
  PAYOUT_DB_USER: z.string().min(1).default('payout_svc'),
  PAYOUT_DB_PASSWORD: z.string().optional(),
  PAYOUT_DB_POOL_SIZE: int(1, 200).default(20),
  /** Chains entries may be on. */
  PAYOUT_CHAIN_IDS: z
    .string()
    .default('1,56,137')
    .transform((v, ctx) => {
      const ids = v.split(',').map((s) => Number(s.trim()));
      if (ids.some((id) => !Number.isSafeInteger(id) || id < 1)) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of positive integers' });
        return z.NEVER;
      }
      return ids;
    }),
  /** Assets entries may be in, with their decimals: `SYMBOL:decimals,...`. */
  PAYOUT_ASSETS: z
    .string()
    .default('ETH:18,WETH:18,BNB:18,WBNB:18,POL:18,MATIC:18,USDC:6,USDT:6')
    .transform((v, ctx) => {
      const assets = new Map<string, number>();
      for (const part of v.split(',')) {
        const [symbol, decimals] = part.trim().split(':');
        if (!symbol || !/^[A-Z0-9]{1,16}$/.test(symbol) || !/^\d{1,2}$/.test(decimals ?? '') || Number(decimals) > 18) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not SYMBOL:decimals (decimals 0..18)` });
          return z.NEVER;
        }
        assets.set(symbol, Number(decimals));
      }
      return assets;
    }),
  /** Smallest payout per asset, `SYMBOL:amount,...`; assets not listed: anything above 0. */
  PAYOUT_MINIMUMS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const minimums = new Map<string, string>();
      for (const part of v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const [symbol, amount] = part.split(':');
        if (!symbol || !amount || !DECIMAL.test(amount)) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not SYMBOL:amount` });
          return z.NEVER;
        }
        minimums.set(symbol, amount);
      }
      return minimums;
    }),
  /** Automatic settlement: blocks on top of a payout's transaction (its own included) before it is PAID. */
  PAYOUT_CONFIRMATIONS: int(1, 1000).default(2),
  /** How often each settling chain sends new payouts and follows sent ones. */
  PAYOUT_SETTLE_INTERVAL_MS: int(50, 600_000).default(1000),
  /** A payout transaction still unmined this long after it was first sent is replaced by a zero-value self-transfer (then TX_FAILED). */
  PAYOUT_TX_DEADLINE_SECONDS: int(10, 86_400).default(600),
  /** Priority fee of payout transactions (wei). */
  PAYOUT_GAS_TIP_WEI: z
    .string()
    .regex(/^\d{1,30}$/, 'must be a decimal integer (wei)')
    .default('1000000000')
    .transform(BigInt),
  /** Assets worth one US dollar each in `estimatedUsd`. */
  PAYOUT_USD_ASSETS: z
    .string()
    .default('USD,USDC,USDT,DAI')
    .transform(
      (v) =>
        new Set(
          v
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean),
        ),
    ),
  /** How long a native coin's USD price (from the chain's stable pair) is reused. */
  PAYOUT_PRICE_CACHE_MS: int(0, 3_600_000).default(30_000),
  /** Tests only: `after-sign` or `after-send` makes the process kill itself (SIGKILL) at that point of its first payout. */
  PAYOUT_FAILPOINT: z.enum(['after-sign', 'after-send']).optional(),
  /** Most MEV-capture events applied per database statement. */
  INGEST_BATCH: int(1, 5000).default(500),
  ...LOG_ENV,
});

/** A chain whose payouts the service sends itself (`PAYOUT_SIGNER_KEY_<chainId>`). */
export interface SettlementChain {
  chainId: number;
  /** The chain's JSON-RPC endpoints (`PAYOUT_RPC_URL_<id>`, else `RPC_URL_<id>`; comma-separated): reads from a live one, transactions to all. */
  rpcUrls: string[];
  /** The treasury's private key (never logged). */
  signerKey: string;
  /** The asset paid by a plain transfer of the chain's native coin. */
  nativeAsset: string;
  /** ERC-20 assets by symbol: their token contract (`PAYOUT_TOKEN_<chainId>_<SYMBOL>`). */
  tokens: Map<string, string>;
}

/** How a chain's balances are priced in USD: its native coin against a stable coin on its DEX. */
export interface PricedChain {
  chainId: number;
  stablePair: string;
  wrappedNative: string;
  /** Assets worth one native coin (the coin, its wrapped token). */
  nativeAssets: Set<string>;
}

export type PayoutServiceEnv = z.output<typeof EnvSchema> & { settlementChains: SettlementChain[]; pricedChains: PricedChain[] };

function pricedChains(base: z.output<typeof EnvSchema>, source: NodeJS.ProcessEnv, problems: string[]): PricedChain[] {
  const chains: PricedChain[] = [];
  for (const chainId of base.PAYOUT_CHAIN_IDS) {
    const stablePair = source[`STABLE_PAIR_${chainId}`] || DEX_DEFAULTS[chainId]?.stablePair;
    const wrappedNative = source[`WRAPPED_NATIVE_${chainId}`] || DEX_DEFAULTS[chainId]?.wrappedNative;
    if (!stablePair || !wrappedNative) continue;
    if (!ADDRESS.test(stablePair) || !ADDRESS.test(wrappedNative)) {
      problems.push(`  STABLE_PAIR_${chainId}, WRAPPED_NATIVE_${chainId}: must be 0x-prefixed 20-byte hex addresses`);
      continue;
    }
    const native = source[`PAYOUT_NATIVE_ASSET_${chainId}`] || NATIVE_ASSETS[chainId] || 'ETH';
    const nativeAssets = new Set([native, `W${native}`, ...(NATIVE_PRICED_ASSETS[chainId] ?? [])]);
    chains.push({ chainId, stablePair: stablePair.toLowerCase(), wrappedNative: wrappedNative.toLowerCase(), nativeAssets });
  }
  return chains;
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function settlementChains(base: z.output<typeof EnvSchema>, source: NodeJS.ProcessEnv, problems: string[]): SettlementChain[] {
  const chains: SettlementChain[] = [];
  for (const chainId of base.PAYOUT_CHAIN_IDS) {
    const signerKey = source[`PAYOUT_SIGNER_KEY_${chainId}`];
    if (!signerKey) continue;
    if (!PRIVATE_KEY.test(signerKey)) {
      problems.push(`  PAYOUT_SIGNER_KEY_${chainId}: must be a 0x-prefixed 32-byte hex private key`);
      continue;
    }
    const name = source[`PAYOUT_RPC_URL_${chainId}`] ? `PAYOUT_RPC_URL_${chainId}` : `RPC_URL_${chainId}`;
    const rpcUrls = urlList(name, source[name], ['http:', 'https:'], problems);
    if (rpcUrls.length === 0) {
      problems.push(`  PAYOUT_RPC_URL_${chainId}: an http(s) JSON-RPC URL is required with PAYOUT_SIGNER_KEY_${chainId} (or RPC_URL_${chainId})`);
      continue;
    }
    const nativeAsset = source[`PAYOUT_NATIVE_ASSET_${chainId}`] || NATIVE_ASSETS[chainId] || 'ETH';
    const tokens = new Map<string, string>();
    for (const symbol of base.PAYOUT_ASSETS.keys()) {
      const token = source[`PAYOUT_TOKEN_${chainId}_${symbol}`];
      if (!token) continue;
      if (!ADDRESS.test(token)) problems.push(`  PAYOUT_TOKEN_${chainId}_${symbol}: must be a 0x-prefixed 20-byte hex address`);
      else if (symbol === nativeAsset)
        problems.push(`  PAYOUT_TOKEN_${chainId}_${symbol}: ${symbol} is the chain's native asset (PAYOUT_NATIVE_ASSET_${chainId})`);
      else tokens.set(symbol, token.toLowerCase());
    }
    chains.push({ chainId, rpcUrls, signerKey, nativeAsset, tokens });
  }
  return chains;
}

export function loadEnv(source: NodeJS.ProcessEnv = process.env): PayoutServiceEnv {
  return loadServiceEnv('payout-service', EnvSchema, source, (base, problems) => ({
    settlementChains: base ? settlementChains(base, source, problems) : [],
    pricedChains: base ? pricedChains(base, source, problems) : [],
  }));
}

export const ENV = Symbol('PayoutServiceEnv');
