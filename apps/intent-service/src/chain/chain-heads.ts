import { Injectable } from '@nestjs/common';

/**
 * The newest head each chain's launch watcher saw (its poll, or a `newHeads` announcement), for
 * the other per-chain loops of this replica (the executor's idle tick, the pending-launch
 * watcher's pair lookups): they need to know whether a block came, and need not ask the node
 * again on every tick. A head older than the caller allows (the watcher runs on another replica,
 * or its node stopped answering) is no head: the caller reads its own.
 */
@Injectable()
export class ChainHeads {
  private readonly heads = new Map<number, { number: bigint; at: number }>();

  seen(chainId: number, number: bigint): void {
    this.heads.set(chainId, { number, at: performance.now() });
  }

  /** The head seen within the last `maxAgeMs`, or null. */
  recent(chainId: number, maxAgeMs: number): bigint | null {
    const head = this.heads.get(chainId);
    return head && performance.now() - head.at <= maxAgeMs ? head.number : null;
  }
}
