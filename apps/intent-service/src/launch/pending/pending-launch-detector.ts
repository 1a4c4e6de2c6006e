import type { Logger } from '@nestjs/common';
import type { SimulatedCall, SimulationResult, StateUpdate } from '@tradeinfra/contracts';
import type { ProbeResult } from '../../execution/launch-intake.js';
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
  /**
   * Token probes run behind the launch in its own simulation, by token (see `behind`): known once
   * that simulation ends (the launch is reported as soon as its own call is final); empty when
   * there were none, or the calls behind failed.
   */
  probes: Promise<Map<string, ProbeResult>>;
}

/** Calls to run right behind a candidate in its own simulation, and what their results say once its launches are known. */
export interface BehindLaunch {
  calls: SimulationRequest['calls'];
  read(results: SimulationResult['calls'], launches: FirstLiquidity[]): Map<string, ProbeResult>;
}

export interface PendingLaunchDetectorOptions {
  chainId: number;
  /** The chain's nodes; with several, a transaction the one read does not have yet is asked of all (`everywhere`). */
  rpc: Pick<ChainRpc, 'batch'> & Partial<Pick<ChainRpc, 'everywhere' | 'size'>>;
  /** `onFirstCall`: given the first call's result (and the block it ran on, hex) as soon as it is final, while the rest runs. */
  simulate: (request: SimulationRequest, onFirstCall?: (call: SimulatedCall, blockNumber: string) => void) => Promise<SimulationResult>;
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
 * Turns pending-transaction hashes into launches: fetches them in one batch, simulates the
 * candidates on the head state and reports those that give a watched token its first liquidity,
 * with the signed bytes rebuilt and checked (docs/design/pending-launch-path.md).
 */
export class PendingLaunchDetector {
  private readonly seen = new Set<string>();

  constructor(private readonly options: PendingLaunchDetectorOptions) {}

  /** Looks at `hash` again when it is announced again (a launch dropped, whose very transaction may come back). */
  forget(hash: string): void {
    this.seen.delete(hash.toLowerCase());
  }

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
    await this.fromEveryNode(fresh, replies);
    const candidates = replies
      .map((r) => (r.result ?? null) as RpcTransaction | null)
      .filter((tx): tx is RpcTransaction => tx !== null && (tx.blockNumber ?? null) === null && isLaunchCandidate(tx, watch));
    // Every candidate is seen through (each reports its own launch) before the first error is thrown.
    const found = await Promise.allSettled(candidates.map((tx) => this.inspect(tx, headBlock, watch, knownPairs, seenAt)));
    const failed = found.find((f) => f.status === 'rejected');
    if (failed) throw failed.reason;
    return found.flatMap((f) => (f.status === 'fulfilled' && f.value ? [f.value] : []));
  }

  /**
   * Where the chain has several nodes, the transactions the one read did not know yet (another
   * node announced them) asked of every node, in place in `replies`: the path of a hash the
   * reading node had is unchanged.
   */
  private async fromEveryNode(hashes: string[], replies: { result?: unknown; error?: unknown }[]): Promise<void> {
    const { rpc } = this.options;
    if (!rpc.everywhere || (rpc.size ?? 1) < 2) return;
    const missing = hashes.flatMap((hash, i) => (replies[i] && !replies[i].error && (replies[i].result ?? null) === null ? [i] : []));
    if (missing.length === 0) return;
    const found = await rpc.everywhere(missing.map((i) => ({ method: 'eth_getTransactionByHash', params: [hashes[i]!] }))).catch(() => []);
    found.forEach((reply, j) => {
      if (!reply.error && reply.result) replies[missing[j]!] = reply;
    });
  }

  /** The launch `tx` is, reported (onLaunch) as soon as it is known, or null. */
  private async inspect(
    tx: RpcTransaction,
    headBlock: string,
    watch: LaunchWatch,
    knownPairs: ReadonlyMap<string, readonly [string, string]> | undefined,
    seenAt: number,
  ): Promise<PendingLaunch | null> {
    const { chainId, logger } = this.options;
    const launchCall = { from: tx.from, to: tx.to, data: tx.input, value: tx.value, gas: tx.gas };
    let behind = this.options.behind?.(tx) ?? null;
    let reportProbes!: (probes: Map<string, ProbeResult>) => void;
    const probes = new Promise<Map<string, ProbeResult>>((resolve) => (reportProbes = resolve));
    /** The launch the candidate's own call makes (its result final), once; null when it is none. */
    let launch = undefined as PendingLaunch | null | undefined;
    /** onLaunch's run, and what went wrong recognising or reporting (thrown once the simulation is over). */
    let reported: Promise<void> = Promise.resolve();
    let failure: { error: unknown } | null = null;
    const recognise = (call: SimulatedCall | undefined, blockNumber: string) => {
      if (launch !== undefined) return;
      try {
        launch = call ? this.launchOf(tx, call, blockNumber, watch, knownPairs, seenAt, probes) : null;
      } catch (error) {
        launch = null;
        failure ??= { error };
        return;
      }
      const found = launch;
      if (found) {
        reported = Promise.resolve()
          .then(() => this.options.onLaunch(found))
          .catch((error: unknown) => void (failure ??= { error }));
      }
    };
    const simulate = (calls: SimulationRequest['calls']) =>
      this.options
        .simulate({ chainId, blockNumber: headBlock, calls }, calls.length > 1 ? recognise : undefined)
        .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    // The probes are known (or known to be none) once this ends, whatever happens: a round waits for them.
    let known = new Map<string, ProbeResult>();
    try {
      let result = await simulate([launchCall, ...(behind?.calls ?? [])]);
      if (result instanceof Error && behind && launch === undefined) {
        // Without the calls behind it (which the simulation may have refused): the launch alone.
        behind = null;
        result = await simulate([launchCall]);
      }
      if (result instanceof Error) {
        if (launch === undefined) logger.warn(`pending ${tx.hash}: could not simulate (${result.message})`);
      } else {
        recognise(result.calls[0], result.blockNumber);
        const found: PendingLaunch | null | undefined = launch;
        if (found && behind) known = behind.read(result.calls.slice(1), found.launches);
      }
    } catch (error) {
      failure ??= { error };
    } finally {
      reportProbes(known);
    }
    await reported;
    if (failure) throw (failure as { error: unknown }).error;
    return launch ?? null;
  }

  /** The launch a candidate's call makes (its logs give watched tokens their first liquidity), with its signed bytes; or null. */
  private launchOf(
    tx: RpcTransaction,
    call: SimulatedCall,
    blockNumber: string,
    watch: LaunchWatch,
    knownPairs: ReadonlyMap<string, readonly [string, string]> | undefined,
    seenAt: number,
    probes: Promise<Map<string, ProbeResult>>,
  ): PendingLaunch | null {
    if (call.status !== 1) return null;
    const launches = firstLiquidity(call.logs, watch, knownPairs);
    if (launches.length === 0) return null;
    let raw: string;
    try {
      raw = rebuildRawTransaction(tx);
    } catch (err) {
      if (!(err instanceof UnverifiableTransaction)) throw err;
      this.options.logger.warn(`pending launch ${tx.hash} ignored: ${err.message}`);
      return null;
    }
    const { chainId } = this.options;
    return { chainId, txHash: tx.hash, raw, transaction: tx, launches, stateAfter: call.updated, headBlock: BigInt(blockNumber), seenAt, probes };
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
