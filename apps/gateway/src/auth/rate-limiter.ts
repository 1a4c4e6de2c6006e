import { systemClock } from '@tradeinfra/service-kit';
import type { Response } from 'express';

/** One decision of a {@link RateLimiter}, with what the `X-RateLimit-*` headers tell the client. */
export interface RateDecision {
  allowed: boolean;
  /** Whole seconds to wait before the next request can pass; 0 when this one passed. */
  retryAfter: number;
  /** The bucket's size: requests that may pass at once. */
  limit: number;
  /** Requests that may still pass at once after this one. */
  remaining: number;
  /** Unix time (seconds) at which the bucket is full again. */
  reset: number;
}

const MAX_BUCKETS = 100_000;

/**
 * Token buckets, in this gateway replica's memory: `rate` tokens per second sustained, `burst`
 * at once (a key with its own rate gets a bucket of that many). Buckets idle longest are dropped
 * first when there are more than 100,000.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    private readonly defaultRate: number,
    private readonly defaultBurst: number,
    /** Wall clock in ms (the reset time is absolute). */
    private readonly now: () => number = systemClock,
  ) {}

  take(key: string, rate = this.defaultRate): RateDecision {
    const burst = rate === this.defaultRate ? this.defaultBurst : Math.max(1, rate);
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key); // re-inserted below: the map stays ordered by last use
    } else {
      bucket = { tokens: burst, updatedAt: now };
      if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
    }
    this.buckets.set(key, bucket);
    const elapsed = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(burst, bucket.tokens + (elapsed / 1000) * rate);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const untilFullMs = ((burst - bucket.tokens) / rate) * 1000;
    return {
      allowed,
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / rate)),
      limit: burst,
      remaining: Math.floor(bucket.tokens),
      reset: Math.ceil((now + untilFullMs) / 1000),
    };
  }
}

/** Sets `X-RateLimit-Limit`, `-Remaining` and `-Reset` (unix seconds), as GitHub's API does. */
export function setRateLimitHeaders(res: Pick<Response, 'setHeader'>, decision: RateDecision): void {
  res.setHeader('x-ratelimit-limit', String(decision.limit));
  res.setHeader('x-ratelimit-remaining', String(decision.remaining));
  res.setHeader('x-ratelimit-reset', String(decision.reset));
}

/**
 * The bucket a client address counts against: an IPv4 address (IPv4-mapped IPv6 included) as
 * it is; an IPv6 address by its /64, since one host commonly holds a whole /64.
 */
export function addressBucket(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const groups = ipv6Groups(ip);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : ip;
}

/** The 8 groups of an IPv6 address (zone dropped, embedded IPv4 as two groups), or null. */
function ipv6Groups(ip: string): string[] | null {
  const address = ip.split('%')[0]!.toLowerCase();
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parts = (half: string | undefined): string[] | null => {
    if (!half) return [];
    const out: string[] = [];
    for (const part of half.split(':')) {
      if (/^\d{1,3}(\.\d{1,3}){3}$/.test(part)) {
        const [a, b, c, d] = part.split('.').map(Number) as [number, number, number, number];
        out.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
      } else if (/^[0-9a-f]{1,4}$/.test(part)) {
        out.push(parseInt(part, 16).toString(16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = parts(halves[0]);
  const tail = parts(halves[1]);
  if (!head || !tail) return null;
  const zeros = 8 - head.length - tail.length;
  if (halves.length === 1 ? zeros !== 0 : zeros < 1) return null;
  return [...head, ...Array<string>(zeros).fill('0'), ...tail];
}
