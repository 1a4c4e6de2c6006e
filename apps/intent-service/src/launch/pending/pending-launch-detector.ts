import type { Logger } from '@nestjs/common';
import type { SimulationResult, StateUpdate } from '@tradeinfra/contracts';
import type { ProbeResult } from '../../execution/token-prober.js';
import type { ChainRpc, SimulationRequest } from '@tradeinfra/service-kit';
import { isLaunchCandidate, type LaunchWatch } from './candidates.js';
import { firstLiquidity, type FirstLiquidity } from './first-liquidity.js';
import { rebuildRawTransaction, UnverifiableTransaction, type RpcTransaction } from './raw-transaction.js';

/** A launch seen in the mempool: the transaction that will give watched tokens their first liquidity. */
export interface PendingLaunch {
  chainId: number;
  txHash: string;
  /** The launch transaction's signed bytes, checked against its hash (what a bundle carries first). */
  raw: string;
  transaction: RpcTransaction;
  launches: FirstLiquidity[];
  /** The state the launch leaves, as simulation overrides: the checks and quotes run on head + this. */
  stateAfter: StateUpdate;
  /** The head block the launch was simulated on. */
  headBlock: bigint;
  /** When the transaction's hash was first announced (performance.now()). */
  seenAt: number;
  /** Token probes run behind the launch in its own simulation, by token (see `behind`). */
  probes: Map<string, ProbeResult>;
}

/** Calls to run right behind a candidate in its own simulation, and what their results say once its launches are known. */
export interface BehindLaunch {
  calls: SimulationRequest['calls'];
  read(results: SimulationResult['calls'], launches: FirstLiquidity[]): Map<string, ProbeResult>;
}

export interface PendingLaunchDetectorOptions {
  chainId: number;
  rpc: Pick<ChainRpc, 'batch'>;
  simulate: (request: SimulationRequest) => Promise<SimulationResult>;
  /** What is watched right now (tokens with pending intents and no liquidity), with pairs created before their liquidity. */
  watch: () => { watch: LaunchWatch; knownPairs?: ReadonlyMap<string, readonly [string, string]> };
  onLaunch: (launch: PendingLaunch) => void | Promise<void>;
  /** Calls to run behind a candidate in the same simulation (the token probe), or null. */
  behind?: (tx: RpcTransaction) => BehindLaunch | null;
  logger: Pick<Logger, 'log' | 'warn'>;
  /** How many hashes are remembered so none is fetched twice. */
  rememberHashes?: number;
}

/**
 * Turns pending-transaction hashes into launches: fetches the transactions in one batch, keeps the
 * candidates (a cheap look at `to` and calldata), simulates each on the head state through the
 * simulation service, and reports those whose logs give a watched token its first liquidity, with
 * the signed bytes rebuilt and checked. A transaction that reverts in simulation, or whose bytes
 * cannot be rebuilt, is not a launch.
 */
export class PendingLaunchDetector {
  private readonly seen = new Set<string>();

  constructor(private readonly options: PendingLaunchDetectorOptions) {}

  async handle(hashes: readonly string[], seenAt = performance.now()): Promise<PendingLaunch[]> {
    const fresh = hashes.map((h) => h.toLowerCase()).filter((h) => !this.seen.has(h));
    if (fresh.length === 0) return [];
    this.remember(fresh);
    const { watch, knownPairs } = this.options.watch();
    if (watch.tokens.size === 0) return [];
    // The head in the same batch: the simulation runs on exactly the state the node has now
    // (a cached "latest" could predate a token deployed a block ago).
    const [head, ...replies] = await this.options.rpc.batch<RpcTransaction | string | null>([
      { method: 'eth_blockNumber', params: [] },
      ...fresh.map((hash) => ({ method: 'eth_getTransactionByHash', params: [hash] })),
    ]);
    if (typeof head?.result !== 'string') {
      this.options.logger.warn(`pending transactions not inspected: no head block (${head?.error?.message ?? 'no answer'})`);
      for (const h of fresh) this.seen.delete(h);
      return [];
    }
    const headBlock = head.result;
    const candidates = replies
      .map((r) => (r.result ?? null) as RpcTransaction | null)
      .filter((tx): tx is RpcTransaction => tx !== null && (tx.blockNumber ?? null) === null && isLaunchCandidate(tx, watch));
    const found = await Promise.all(candidates.map((tx) => this.inspect(tx, headBlock, watch, knownPairs, seenAt)));
    const launches = found.filter((l): l is PendingLaunch => l !== null);
    for (const launch of launches) await this.options.onLaunch(launch);
    return launches;
  }

  private async inspect(
    tx: RpcTransaction,
    headBlock: string,
    watch: LaunchWatch,
    knownPairs: ReadonlyMap<string, readonly [string, string]> | undefined,
    seenAt: number,
  ): Promise<PendingLaunch | null> {
    const { chainId, logger } = this.options;
    const launchCall = { from: tx.from, to: tx.to, data: tx.input, value: tx.value, gas: tx.gas };
    const simulate = (calls: SimulationRequest['calls']) =>
      this.options.simulate({ chainId, blockNumber: headBlock, calls }).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    let behind = this.options.behind?.(tx) ?? null;
    let result = await simulate([launchCall, ...(behind?.calls ?? [])]);
    if (result instanceof Error && behind) {
      // Without the calls behind it (which the simulation may have refused): the launch alone.
      behind = null;
      result = await simulate([launchCall]);
    }
    if (result instanceof Error) {
      logger.warn(`pending ${tx.hash}: could not simulate (${result.message})`);
      return null;
    }
    const call = result.calls[0];
    if (!call || call.status !== 1) return null;
    const launches = firstLiquidity(call.logs, watch, knownPairs);
    if (launches.length === 0) return null;
    let raw: string;
    try {
      raw = rebuildRawTransaction(tx);
    } catch (err) {
      if (!(err instanceof UnverifiableTransaction)) throw err;
      logger.warn(`pending launch ${tx.hash} ignored: ${err.message}`);
      return null;
    }
    const probes = behind ? behind.read(result.calls.slice(1), launches) : new Map<string, ProbeResult>();
    return { chainId, txHash: tx.hash, raw, transaction: tx, launches, stateAfter: call.updated, headBlock: BigInt(result.blockNumber), seenAt, probes };
  }

  private remember(hashes: string[]): void {
    const limit = this.options.rememberHashes ?? 100_000;
    for (const h of hashes) this.seen.add(h);
    if (this.seen.size <= limit) return;
    const drop = this.seen.size - limit;
    let i = 0;
    for (const h of this.seen) {
      if (i++ >= drop) break;
      this.seen.delete(h);
    }
  }
}
