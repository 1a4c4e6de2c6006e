import { backoffDelay, parseRetryAfter, retryDelay, sleep } from './backoff.js';

describe('backoff', () => {
  it('doubles from the base delay up to the cap, with jitter in the upper half', () => {
    const low = () => 0;
    const high = () => 0.999999;
    const options = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, options, low))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, options, high))).toEqual([100, 200, 400, 800, 1000, 1000]);
    for (let i = 0; i < 1000; i++) {
      const d = backoffDelay(3, options);
      expect(d).toBeGreaterThanOrEqual(200);
      expect(d).toBeLessThanOrEqual(400);
    }
  });

  it('defaults to 250 ms doubling up to 10 s', () => {
    expect(backoffDelay(1, {}, () => 0.999999)).toBe(250);
    expect(backoffDelay(40, {}, () => 0.999999)).toBe(10_000);
  });

  it('parses Retry-After as seconds or as an HTTP date; anything else is null', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
    for (const bad of [null, undefined, '', '1.5', '-1', 'soon', '99999999999999999999']) expect(parseRetryAfter(bad, now)).toBeNull();
  });

  it('waits what Retry-After says (plus at most 10 %, 1 s), else the backoff', () => {
    expect(retryDelay(1, 2000, {}, () => 0)).toBe(2000);
    expect(retryDelay(1, 2000, {}, () => 0.999999)).toBe(2200);
    expect(retryDelay(1, 30_000, {}, () => 0.999999)).toBe(31_000);
    expect(retryDelay(2, null, { baseDelayMs: 100 }, () => 0)).toBe(100);
  });

  it('sleep stops at once when its signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});
