/**
 * Token bucket per API key, in this gateway replica's memory: `ratePerSecond` sustained,
 * `burst` at once. Returns 0 when a request may pass, else the seconds to wait.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    private readonly defaultRate: number,
    private readonly defaultBurst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  take(key: string, rate = this.defaultRate): number {
    const burst = rate === this.defaultRate ? this.defaultBurst : Math.max(1, rate);
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size > 100_000) this.buckets.clear();
      bucket = { tokens: burst, updatedAt: now };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * rate);
    bucket.updatedAt = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
  }
}
