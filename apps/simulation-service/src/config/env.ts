import { Hardfork } from '@ethereumjs/common';
import { availableParallelism } from 'node:os';
import { CHAIN_RPC_ENV, envInt as int, HEALTH_ENV, loadServiceEnv, LOG_ENV, NATS_ENV, urlList } from '@tradeinfra/service-kit';
import { z } from 'zod';

const EnvSchema = z.object({
  ...NATS_ENV,
  /** RPC_MAX_LAG_BLOCKS, RPC_CHECK_INTERVAL_MS, RPC_CHECK_TIMEOUT_MS: how a chain's several endpoints are chosen between. */
  ...CHAIN_RPC_ENV,
  ...HEALTH_ENV,
  /** Bound on one upstream JSON-RPC round trip; past it the request fails with 502. */
  SIM_UPSTREAM_TIMEOUT_MS: int(100, 120_000).default(10_000),
  /** Bound on one whole simulation (execution included). */
  SIM_TIMEOUT_MS: int(100, 120_000).default(10_000),
  /**
   * Worker threads running the EVM (one simulation each at a time); default: the cores, at least
   * 2 (one long simulation never leaves the service without a free worker). More than the cores
   * raises warm throughput (a worker waiting for the main thread leaves its core to another:
   * 4 on 2 cores, 231 warm swaps/s at concurrency 8 against 139 with 2) at the cost of a slower
   * start (each worker loads its own EVM) and memory.
   */
  SIM_WORKERS: int(1, 256).default(Math.max(2, availableParallelism())),
  /** A worker still running this long after SIM_TIMEOUT_MS (its answer already sent) is terminated and replaced. */
  SIM_KILL_GRACE_MS: int(0, 60_000).default(1_000),
  /** Upstream JSON-RPC calls one simulation may make (balance, nonce and code: 3 per account; 1 per slot, header, access list); past it: 422. */
  SIM_MAX_UPSTREAM_READS: int(1, 10_000_000).default(5_000),
  /** Memory cap of the shared chain-state cache (each worker keeps a copy of what it used, capped the same). */
  SIM_CACHE_MAX_MB: int(1, 64 * 1024).default(256),
  /**
   * Memory cap of the answers kept for a repeat of the same request at the same explicit block
   * (simulation/result-cache.ts); 0: none kept.
   */
  SIM_RESULT_CACHE_MB: int(0, 64 * 1024).default(64),
  /** Per-call gas cap; 0: none beyond the block gas limit and the fork's transaction gas cap (EIP-7825). */
  SIM_MAX_CALL_GAS: int(0).default(0),
  /** Largest JSON-RPC batch sent upstream. */
  SIM_RPC_BATCH_MAX: int(1, 1000).default(200),
  ...LOG_ENV,
});

export interface ChainConfig {
  chainId: number;
  /** The chain's JSON-RPC endpoints (`RPC_URL_<id>`, comma-separated): state is read from a live one that has the block. */
  rpcUrls: string[];
  /** Fixed hardfork (HARDFORK_<chainId>), else chosen per block from the chain's schedule. */
  hardfork: string | null;
}

export type SimulationEnv = z.output<typeof EnvSchema> & { chains: Map<number, ChainConfig> };

/** Chains come from `RPC_URL_<chainId>` (and optional `HARDFORK_<chainId>`) variables. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): SimulationEnv {
  return loadServiceEnv('simulation-service', EnvSchema, source, (_base, problems) => ({ chains: rpcChains(source, problems) }));
}

function rpcChains(source: NodeJS.ProcessEnv, problems: string[]): Map<number, ChainConfig> {
  const chains = new Map<number, ChainConfig>();
  for (const [name, value] of Object.entries(source)) {
    const match = /^RPC_URL_(\d+)$/.exec(name);
    if (!match || !value) continue;
    const chainId = Number(match[1]);
    const rpcUrls = urlList(name, value, ['http:', 'https:'], problems);
    if (rpcUrls.length === 0) continue;
    const hardfork = source[`HARDFORK_${chainId}`] || null;
    if (hardfork !== null && !HARDFORKS.includes(hardfork)) {
      problems.push(`  HARDFORK_${chainId}: must be a hardfork name (${HARDFORKS.join(', ')})`);
      continue;
    }
    chains.set(chainId, { chainId, rpcUrls, hardfork });
  }
  return chains;
}

const HARDFORKS: string[] = Object.values(Hardfork);

export const ENV = Symbol('SimulationEnv');
