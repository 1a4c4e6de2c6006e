import { RateLimiter } from './rate-limiter.js';

describe('RateLimiter', () => {
  let now = 0;
  const limiter = () => new RateLimiter(10, 3, () => now);

  beforeEach(() => {
    now = 0;
  });

  it('lets a burst through, then asks to wait', () => {
    const l = limiter();
    expect([l.take('k'), l.take('k'), l.take('k')]).toEqual([0, 0, 0]);
    expect(l.take('k')).toBe(1);
  });

  it('refills at the rate', () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) l.take('k');
    now += 100; // 10/s → one token per 100 ms
    expect(l.take('k')).toBe(0);
    expect(l.take('k')).toBe(1);
  });

  it('keeps keys apart and honours a per-key rate', () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) l.take('a');
    expect(l.take('b')).toBe(0);
    expect(l.take('slow', 1)).toBe(0);
    expect(l.take('slow', 1)).toBe(1);
    now += 1000;
    expect(l.take('slow', 1)).toBe(0);
  });
});
