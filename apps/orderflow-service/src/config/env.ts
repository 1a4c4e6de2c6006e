import { NATIVE_ASSETS } from '@tradeinfra/contracts';
import { CHAIN_RPC_ENV, envInt as int, HEALTH_ENV, loadServiceEnv, LOG_ENV, NATS_ENV, POSTGRES_ENV, urlList } from '@tradeinfra/service-kit';
import { z } from 'zod';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;
const SOURCE = /^[A-Za-z0-9_.:-]{1,64}$/;

const EnvSchema = z.object({
  ...NATS_ENV,
  ...HEALTH_ENV,
  ...POSTGRES_ENV,
  ...CHAIN_RPC_ENV,
  ORDERFLOW_DB_USER: z.string().min(1).default('orderflow_svc'),
  ORDERFLOW_DB_PASSWORD: z.string().optional(),
  ORDERFLOW_DB_POOL_SIZE: int(2, 200).default(10),
  /** Chains taking private transactions; unset: every chain with an `RPC_URL_<id>`. */
  ORDERFLOW_CHAIN_IDS: z.string().optional(),
  /** The relays' identity key (X-Flashbots-Signature); unset: `RELAY_AUTH_KEY`, else a random key per process. */
  ORDERFLOW_RELAY_AUTH_KEY: z.string().regex(PRIVATE_KEY, 'must be a 0x-prefixed 32-byte hex private key').optional(),
  RELAY_AUTH_KEY: z.string().regex(PRIVATE_KEY, 'must be a 0x-prefixed 32-byte hex private key').optional(),
  /** The source's share of what a backrun paid, in basis points, unless ORDERFLOW_SOURCE_SHARES names the source. */
  ORDERFLOW_SOURCE_SHARE_BPS: int(0, 10_000).default(9_000),
  /** Per-source shares: `source=bps,…`. */
  ORDERFLOW_SOURCE_SHARES: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const shares = new Map<string, number>();
      for (const part of v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const [source, bps] = part.split('=');
        if (!source || !SOURCE.test(source) || !/^\d{1,5}$/.test(bps ?? '') || Number(bps) > 10_000) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not source=bps (0..10000)` });
          return z.NEVER;
        }
        shares.set(source, Number(bps));
      }
      return shares;
    }),
  /** Blocks on top of a winning bundle's block (its own included) before its capture is credited. */
  ORDERFLOW_CONFIRMATIONS: int(1, 1000).default(3),
  /** How long a private transaction's first auction round takes bids, from its arrival. */
  ORDERFLOW_AUCTION_WINDOW_MS: int(0, 60_000).default(1_000),
  /** How often each chain's loop runs (rounds, inclusion, crediting). */
  ORDERFLOW_POLL_INTERVAL_MS: int(20, 60_000).default(500),
  /** Largest signed transaction taken, bytes (geth's pool takes 128 KiB). */
  ORDERFLOW_MAX_TX_BYTES: int(1024, 1024 * 1024).default(128 * 1024),
  /** Most transactions a searcher's bundle may add behind its target. */
  ORDERFLOW_MAX_BUNDLE_TXS: int(1, 10).default(4),
  /** Bids re-simulated on the new head when a round is decided (the highest ones). */
  ORDERFLOW_MAX_CANDIDATES: int(1, 100).default(5),
  /** How long a simulation may take. */
  ORDERFLOW_SIM_TIMEOUT_MS: int(100, 60_000).default(5_000),
  /** Tests only: the process kills itself (SIGKILL) at that point of its first capture. */
  ORDERFLOW_FAILPOINT: z.enum(['after-observe', 'after-credit', 'after-publish']).optional(),
  ...LOG_ENV,
});

/** A chain the service takes private transactions for. */
export interface OrderflowChain {
  chainId: number;
  /** `RPC_URL_<id>` (comma-separated): reads and state checks. */
  rpcUrls: string[];
  /** `ORDERFLOW_RELAY_URLS_<id>`, else `RELAY_URLS_<id>`: where bundles go. None: sends are refused. */
  relayUrls: string[];
  /** `ORDERFLOW_BENEFICIARY_<id>`: where bids are paid; null: the payout treasury of the chain (asked of the payout service). */
  beneficiary: string | null;
  /** The asset credited: the chain's native coin. */
  nativeAsset: string;
}

export type OrderflowServiceEnv = z.output<typeof EnvSchema> & { chains: OrderflowChain[]; relayKey: string | null };

function chains(base: z.output<typeof EnvSchema>, source: NodeJS.ProcessEnv, problems: string[]): OrderflowChain[] {
  let ids: number[];
  if (base.ORDERFLOW_CHAIN_IDS !== undefined && base.ORDERFLOW_CHAIN_IDS.trim() !== '') {
    ids = base.ORDERFLOW_CHAIN_IDS.split(',').map((s) => Number(s.trim()));
    if (ids.some((id) => !Number.isSafeInteger(id) || id < 1 || id > 2 ** 31 - 1)) {
      problems.push('  ORDERFLOW_CHAIN_IDS: must be a comma-separated list of positive integer chain ids');
      return [];
    }
  } else {
    ids = Object.keys(source)
      .map((k) => /^RPC_URL_(\d+)$/.exec(k)?.[1])
      .filter((id): id is string => id !== undefined && (source[`RPC_URL_${id}`] ?? '').trim() !== '')
      .map(Number)
      .sort((a, b) => a - b);
  }
  const out: OrderflowChain[] = [];
  for (const chainId of ids) {
    const rpcUrls = urlList(`RPC_URL_${chainId}`, source[`RPC_URL_${chainId}`], ['http:', 'https:'], problems);
    if (rpcUrls.length === 0) {
      problems.push(`  RPC_URL_${chainId}: an http(s) JSON-RPC URL is required for chain ${chainId} (ORDERFLOW_CHAIN_IDS)`);
      continue;
    }
    const relayName = source[`ORDERFLOW_RELAY_URLS_${chainId}`] ? `ORDERFLOW_RELAY_URLS_${chainId}` : `RELAY_URLS_${chainId}`;
    const relayUrls = urlList(relayName, source[relayName], ['http:', 'https:'], problems);
    const beneficiary = source[`ORDERFLOW_BENEFICIARY_${chainId}`]?.trim() || null;
    if (beneficiary !== null && !ADDRESS.test(beneficiary)) problems.push(`  ORDERFLOW_BENEFICIARY_${chainId}: must be a 0x-prefixed 20-byte hex address`);
    const nativeAsset = source[`ORDERFLOW_NATIVE_ASSET_${chainId}`] || source[`PAYOUT_NATIVE_ASSET_${chainId}`] || NATIVE_ASSETS[chainId] || 'ETH';
    out.push({ chainId, rpcUrls, relayUrls, beneficiary: beneficiary?.toLowerCase() ?? null, nativeAsset });
  }
  return out;
}

export function loadEnv(source: NodeJS.ProcessEnv = process.env): OrderflowServiceEnv {
  return loadServiceEnv('orderflow-service', EnvSchema, source, (base, problems) => ({
    chains: base ? chains(base, source, problems) : [],
    relayKey: base ? (base.ORDERFLOW_RELAY_AUTH_KEY ?? base.RELAY_AUTH_KEY ?? null) : null,
  }));
}

export const ENV = Symbol('OrderflowServiceEnv');
