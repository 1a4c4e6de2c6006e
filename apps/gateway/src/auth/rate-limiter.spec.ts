import { addressBucket, RateLimiter } from './rate-limiter.js';

describe('RateLimiter', () => {
  let now = 0;
  const limiter = () => new RateLimiter(10, 3, () => now);

  beforeEach(() => {
    now = 1_700_000_000_000;
  });

  it('lets a burst through, then asks to wait', () => {
    const l = limiter();
    expect([l.take('k'), l.take('k'), l.take('k')].map((d) => d.allowed)).toEqual([true, true, true]);
    const refused = l.take('k');
    expect(refused).toMatchObject({ allowed: false, retryAfter: 1, remaining: 0, limit: 3 });
  });

  it('refills at the rate', () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) l.take('k');
    now += 100; // 10/s → one token per 100 ms
    expect(l.take('k').allowed).toBe(true);
    expect(l.take('k').allowed).toBe(false);
  });

  it('keeps keys apart and honours a per-key rate (its bucket holds that many)', () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) l.take('a');
    expect(l.take('b').allowed).toBe(true);
    expect(l.take('slow', 1)).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    expect(l.take('slow', 1)).toMatchObject({ allowed: false, retryAfter: 1 });
    now += 1000;
    expect(l.take('slow', 1).allowed).toBe(true);
  });

  it('reports what X-RateLimit-* say: the bucket size, what is left, and when it is full again (unix seconds)', () => {
    const l = new RateLimiter(2, 10, () => now);
    const first = l.take('k');
    expect(first).toMatchObject({ allowed: true, limit: 10, remaining: 9 });
    // One token used, refilled at 2/s: full again in 0.5 s.
    expect(first.reset).toBe(Math.ceil((now + 500) / 1000));
    for (let i = 0; i < 9; i++) l.take('k');
    const empty = l.take('k');
    expect(empty).toMatchObject({ allowed: false, remaining: 0, retryAfter: 1 });
    expect(empty.reset).toBe(Math.ceil((now + 5_000) / 1000));
  });
});

describe('addressBucket', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:10.1.2.3', '10.1.2.3'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:0000:0000:0001', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ])('%s counts against %s', (ip, bucket) => {
    expect(addressBucket(ip)).toBe(bucket);
  });

  it('two hosts of one /64 share a bucket; another /64 does not', () => {
    expect(addressBucket('2001:db8:aa:bb::1')).toBe(addressBucket('2001:db8:aa:bb:ffff::2'));
    expect(addressBucket('2001:db8:aa:bb::1')).not.toBe(addressBucket('2001:db8:aa:bc::1'));
  });

  it('leaves what is not an address as it is', () => {
    expect(addressBucket('unknown')).toBe('unknown');
    expect(addressBucket('1:2:3')).toBe('1:2:3');
  });
});
