/** The wall clock, ms since the epoch: the SDK's one read of the time of day (ClientOptions.now replaces it). */
export const systemClock = (): number => Date.now();
/** How long to wait between attempts: exponential, capped, with jitter. */
export interface BackoffOptions {
  /** Delay before the first retry, ms (before jitter). Default 250. */
  baseDelayMs?: number;
  /** Largest delay, ms (before jitter). Default 10,000. */
  maxDelayMs?: number;
}

export const DEFAULT_BASE_DELAY_MS = 250;
export const DEFAULT_MAX_DELAY_MS = 10_000;

/**
 * The delay before retry number `retry` (1 for the first retry): `base × 2^(retry-1)`, capped at
 * `maxDelayMs`, then "equal jitter": a random point in the upper half of that, so clients that
 * failed together do not come back together, yet each waits at least half the nominal delay.
 */
export function backoffDelay(retry: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const exponent = Math.max(0, Math.min(retry - 1, 30));
  const nominal = Math.min(max, base * 2 ** exponent);
  return Math.round(nominal / 2 + random() * (nominal / 2));
}

/**
 * A `Retry-After` header in ms: delta-seconds (`"3"`) or an HTTP date
 * (`"Wed, 21 Oct 2015 07:28:00 GMT"`, counted from `now`); null when absent or unreadable.
 * A date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = systemClock()): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (text === '') return null;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : null;
  }
  // An HTTP-date always names a weekday and a month; refuse anything looser (Date.parse reads "1.5" as a date).
  if (!/^[A-Za-z]{3},? /.test(text)) return null;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return null;
  return Math.max(0, at - now);
}

/**
 * The delay before a retry: what the server asked for (`Retry-After`), plus a little jitter (up
 * to 10 %, at most 1 s) so clients told the same second do not return in one burst; else the
 * exponential backoff.
 */
export function retryDelay(retry: number, retryAfterMs: number | null, options: BackoffOptions = {}, random: () => number = Math.random): number {
  if (retryAfterMs !== null) return retryAfterMs + Math.round(random() * Math.min(1000, retryAfterMs * 0.1));
  return backoffDelay(retry, options, random);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
