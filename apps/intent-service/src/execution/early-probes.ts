import { type Clock } from '../common/clock.js';
import { type ProbeResult } from './token-prober.js';

/** How long an early probe waits for its round (a launch whose round never came: its head moved on). */
const EARLY_PROBE_TTL_MS = 60_000;

/** Where a launch found in a mined block is kept (in place of a pending launch's transaction). */
export const MINED_LAUNCH = 'mined';

/**
 * Token probes started before the launch's round, kept for it: a pending launch's, as it is
 * recognised, and a mined launch's, as the watcher finds it (under MINED_LAUNCH), by (chain,
 * token, launch transaction, head): the round takes one once, at the head it was made at; at any
 * other head, or when it failed, the round probes again.
 */
export class EarlyProbes {
  private readonly probes = new Map<string, { at: number; probe: Promise<ProbeResult | null> }>();

  constructor(
    private readonly now: Clock,
    private readonly ttlMs = EARLY_PROBE_TTL_MS,
  ) {}

  /** Keeps `probe` for the round (and forgets the probes whose round never came). */
  put(chainId: number, token: string, txHash: string, head: bigint, probe: Promise<ProbeResult | null>): void {
    const now = this.now();
    for (const [k, early] of this.probes) if (now - early.at > this.ttlMs) this.probes.delete(k);
    probe.catch(() => undefined); // the round probes again
    this.probes.set(key(chainId, token, txHash, head), { at: now, probe });
  }

  /** The probe of this launch at this head, once (null: none, or it failed or found nothing to probe with). */
  async take(chainId: number, token: string, txHash: string, head: bigint): Promise<ProbeResult | null> {
    const k = key(chainId, token, txHash, head);
    const early = this.probes.get(k);
    if (!early) return null;
    this.probes.delete(k);
    return early.probe.catch(() => null);
  }
}

const key = (chainId: number, token: string, txHash: string, head: bigint) => `${chainId}:${token.toLowerCase()}:${txHash.toLowerCase()}:${head}`;
