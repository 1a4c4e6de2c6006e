import type { SimulateRequest, SimulationResult } from '@tradeinfra/contracts';
import { LRUCache } from 'lru-cache';

/** A result as kept: everything but the per-answer `id` and `processTime`. */
type Kept = Omit<SimulationResult, 'id' | 'processTime'>;

/**
 * The answers of successful simulations at an explicit block, by (chain, block, request), capped
 * in bytes. Same block, same calls, same overrides: same answer, on the state cache's own premise
 * (block-level data is immutable per block number). Why that holds, and what is left out:
 * docs/design/simulation-internals.md, "Answers kept for a repeat".
 */
export class ResultCache {
  private readonly results: LRUCache<string, Kept> | null;

  constructor(maxBytes: number) {
    this.results = maxBytes > 0 ? new LRUCache<string, Kept>({ maxSize: maxBytes }) : null;
  }

  /** The kept answer to this request at this block, with a new id and this answer's processTime. */
  get(request: SimulateRequest, blockNumber: bigint, id: string, processTime: () => number): SimulationResult | undefined {
    const kept = this.results?.get(keyOf(request, blockNumber));
    return kept && { id, chainId: kept.chainId, blockNumber: kept.blockNumber, processTime: processTime(), calls: kept.calls };
  }

  /**
   * Keeps a successful answer (`bytes`: its JSON's length) under the block it ran on: a request
   * for `latest` is kept under the head it resolved to, and answers a later one naming that block.
   */
  set(request: SimulateRequest, result: SimulationResult, bytes: number): void {
    if (!this.results) return;
    const { id: _id, processTime: _time, ...kept } = result;
    const key = keyOf(request, BigInt(result.blockNumber));
    // Strings held as UTF-16, plus the objects around them.
    this.results.set(key, deepFreeze(kept), { size: 2 * (key.length + bytes) + 256 });
  }
}

/**
 * The validated request as exact JSON, in the order it came: a bigint field is always a bigint
 * after validation (as a string field is always a string), so `5n` never meets a string "5n".
 */
function keyOf(request: SimulateRequest, blockNumber: bigint): string {
  return JSON.stringify([request.chainId, blockNumber, request.calls, request.overrides ?? null], (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** Shared by every answer that reuses it: nothing may change it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
