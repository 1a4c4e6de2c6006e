// What the bench reads from the services' logs.
import type { Child } from '../harness/index.js';

/** One round of the intent service at a launch, from its "launch of …" summary line. */
export interface ServiceRound {
  at: number;
  intents: number;
  submitted: number;
  targetBlock: number;
  failed: number;
  deferred: number;
  roundMs: number;
  sinceSeenMs: number | null;
  /** What the round acted on: the launch `block` or its pending `transaction`. */
  seen: string | null;
}

export interface ServiceLog {
  /** Rounds by token (lowercase). */
  launches: Map<string, ServiceRound[]>;
  /** Transient failures of a round, by token. */
  retries: Map<string, string[]>;
  /** Intents that failed at launch (at most 50 lines). */
  failures: string[];
  /** Pending launches the mempool watcher stored, by token. */
  stored: Map<string, { at: number; txHash: string; storedMs: number }>;
}

/** One simulation the simulation service logged (LOG_REQUESTS=true). */
export interface SimulationDone {
  at: number;
  runs: number;
  fetches: number;
  outcome: string;
  ms: number;
}

/** Calls `handle(message)` for every line a child prints (a JSON log record's `message`, else the line). */
export function onLogMessages(entry: Child, handle: (message: string) => void): void {
  let buffer = '';
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let message = line;
      try {
        const parsed = JSON.parse(line) as { message?: unknown } | null;
        if (parsed && typeof parsed.message === 'string') message = parsed.message;
      } catch {
        // a plain line
      }
      handle(message);
    }
  };
  entry.child.stdout!.on('data', onData);
  entry.child.stderr!.on('data', onData);
}

const SUMMARY =
  /^launch of (0x[0-9a-fA-F]{40}) on chain (\d+): (\d+) intent\(s\), (\d+) submitted for block (\d+), (\d+) failed, (\d+) deferred, in (\d+) ms(?: \((-?\d+) ms after the launch (block|transaction) was seen\))?/;
// The mempool watcher: a pending launch recognised (simulated) and stored, after it was announced.
const STORED = /^pending launch of (0x[0-9a-fA-F]{40})(?:, 0x[0-9a-fA-F]{40})* on chain \d+ in (0x[0-9a-fA-F]{64}), stored ([\d.]+) ms after it was seen/;
const RETRY = /^launch of (0x[0-9a-fA-F]{40}) on chain \d+: (.*); retrying( every round)?$/;

/**
 * Follows the intent service's stdout: the "launch of <token> …" summaries (by token, lowercase),
 * transient failures of a round ("…; retrying every round"), and intents that failed at launch.
 */
export function followServiceLog(entry: Child): ServiceLog {
  const log: ServiceLog = { launches: new Map(), retries: new Map(), failures: [], stored: new Map() };
  onLogMessages(entry, (message) => {
    const m = SUMMARY.exec(message);
    if (m) {
      const token = m[1]!.toLowerCase();
      const round: ServiceRound = {
        at: Date.now(),
        intents: Number(m[3]),
        submitted: Number(m[4]),
        targetBlock: Number(m[5]),
        failed: Number(m[6]),
        deferred: Number(m[7]),
        roundMs: Number(m[8]),
        sinceSeenMs: m[9] === undefined ? null : Number(m[9]),
        seen: m[10] ?? null,
      };
      if (!log.launches.has(token)) log.launches.set(token, []);
      log.launches.get(token)!.push(round);
      return;
    }
    const st = STORED.exec(message);
    if (st) {
      log.stored.set(st[1]!.toLowerCase(), { at: Date.now(), txHash: st[2]!, storedMs: Number(st[3]) });
      return;
    }
    const r = RETRY.exec(message);
    if (r) {
      const token = r[1]!.toLowerCase();
      if (!log.retries.has(token)) log.retries.set(token, []);
      log.retries.get(token)!.push(r[2]!.slice(0, 300));
      return;
    }
    if (/^intent [0-9a-f-]{36}: failed \(/.test(message) && log.failures.length < 50) log.failures.push(message.slice(0, 300));
  });
  return log;
}

// `simulation=<id> request=<id> chain=… block=… calls=… rules=… runs=… fetches=… reads=… <outcome> <ms>ms`
const SIMULATION = /^simulation=\S+ request=\S+ .*?runs=(\d+) fetches=(\d+)(?: reads=\d+)?(?: upstream=[\d.]+ms)? (ok|failed:\S+) ([\d.]+)ms$/;

/** Follows the simulation service's request log (LOG_REQUESTS=true): when each simulation ended and what it took. */
export function followSimulationLog(entry: Child): SimulationDone[] {
  const done: SimulationDone[] = [];
  onLogMessages(entry, (message) => {
    const m = SIMULATION.exec(message);
    if (m && done.length < 100_000) done.push({ at: Date.now(), runs: Number(m[1]), fetches: Number(m[2]), outcome: m[3]!, ms: Number(m[4]) });
  });
  return done;
}
