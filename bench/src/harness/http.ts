import http, { type IncomingHttpHeaders } from 'node:http';
import type { Children } from './children.js';
import { percentile, round, sleep } from './log.js';

export interface RequestSpec {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | null;
  timeoutMs?: number;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on `agent` to 127.0.0.1:port; resolves with status, headers and body text. */
export function request(agent: http.Agent, port: number, { method = 'GET', path, headers = {}, body = null, timeoutMs = 15_000 }: RequestSpec): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string | number> = { ...headers };
    if (body !== null) {
      h['content-type'] = 'application/json';
      h['content-length'] = Buffer.byteLength(body);
    }
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** Polls `GET path` until it answers 200 (or throws after timeoutMs). */
export async function waitFor200(port: number, path: string, { timeoutMs = 30_000, children = null as Children | null, what = path } = {}): Promise<void> {
  const agent = new http.Agent({ keepAlive: false });
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    children?.assertAlive();
    try {
      const res = await request(agent, port, { path, timeoutMs: 2_000 });
      if (res.status === 200) return;
      last = `${res.status} ${res.body.slice(0, 300)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`${what} on port ${port} not 200 within ${timeoutMs} ms (last: ${last})`);
}

export interface LoadOptions {
  port: number;
  concurrency: number;
  warmup: number;
  total: number;
  maxMs: number;
  /** Request i, sent by worker w (0 … concurrency − 1: one client each, e.g. with its own API key). */
  make: (i: number, w: number) => RequestSpec;
  expect: number;
  /** A string counts the answer as wrong. */
  check?: ((res: Reply, i: number) => string | null | undefined | false) | null;
  onSample?: ((res: Reply, i: number) => void) | null;
}

export interface LoadResult {
  concurrency: number;
  warmup: number;
  requested: number;
  completed: number;
  seconds: number | null;
  reqPerSec: number | null;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  meanMs: number | null;
  errors: number;
  errorsByKind: Record<string, number>;
  errorSamples: string[];
  timeBoundHit: boolean;
  /** What a bench adds (CPU, rows, …). */
  [figure: string]: any;
}

interface Phase {
  done: number;
  errors: number;
  errorsByKind: Record<string, number>;
  errorSamples: string[];
  elapsedMs: number;
  timeBoundHit: boolean;
}

/**
 * Closed-loop load: `concurrency` workers on one keep-alive agent, `warmup` unmeasured requests
 * then `total` measured ones, bounded by `maxMs` of measured time. An answer whose status is not
 * `expect` (or a network error) is an error. Returns throughput, latency percentiles (ms),
 * errors with samples, and whether the time bound cut the run short.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { concurrency, warmup, total, maxMs } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  try {
    if (warmup > 0) await loadPhase(agent, options, warmup, Math.min(maxMs, 60_000), null);
    const latencies = new Float64Array(total);
    const result = await loadPhase(agent, options, total, maxMs, latencies);
    const done = result.done;
    const sorted = latencies.subarray(0, done).sort();
    return {
      concurrency,
      warmup,
      requested: total,
      completed: done,
      seconds: round(result.elapsedMs / 1000, 3),
      reqPerSec: round(done / (result.elapsedMs / 1000), 1),
      p50Ms: round(percentile(sorted, 50), 2),
      p90Ms: round(percentile(sorted, 90), 2),
      p99Ms: round(percentile(sorted, 99), 2),
      maxMs: round(sorted[sorted.length - 1] ?? null, 2),
      meanMs: round(done ? sorted.reduce((a, b) => a + b, 0) / done : null, 2),
      errors: result.errors,
      errorsByKind: result.errorsByKind,
      errorSamples: result.errorSamples,
      timeBoundHit: result.timeBoundHit,
    };
  } finally {
    agent.destroy();
  }
}

async function loadPhase(agent: http.Agent, options: LoadOptions, count: number, limitMs: number, latencies: Float64Array | null): Promise<Phase> {
  const { port, concurrency, make, expect, check = null, onSample = null } = options;
  let next = 0;
  const phase: Phase = { done: 0, errors: 0, errorsByKind: {}, errorSamples: [], elapsedMs: 0, timeBoundHit: false };
  const started = performance.now();
  const deadline = started + limitMs;
  const noteError = (kind: string, detail: string) => {
    phase.errors++;
    phase.errorsByKind[kind] = (phase.errorsByKind[kind] ?? 0) + 1;
    if (phase.errorSamples.length < 5) phase.errorSamples.push(`${kind}: ${String(detail).slice(0, 300)}`);
  };
  const worker = async (w: number) => {
    for (;;) {
      if (next >= count) return;
      if (performance.now() > deadline) {
        phase.timeBoundHit = true;
        return;
      }
      const i = next++;
      const spec = make(i, w);
      const t0 = performance.now();
      let res: Reply | null = null;
      try {
        res = await request(agent, port, spec);
      } catch (err) {
        noteError('network', (err as Error).message);
      }
      const ms = performance.now() - t0;
      if (latencies) latencies[phase.done] = ms;
      phase.done++;
      if (res) {
        if (res.status !== expect) noteError(`http ${res.status}`, res.body);
        else if (check) {
          const wrong = check(res, i);
          if (wrong) noteError('wrong answer', wrong);
        }
        if (onSample && latencies) onSample(res, i);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  phase.elapsedMs = performance.now() - started;
  return phase;
}
