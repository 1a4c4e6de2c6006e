import { createHash } from 'node:crypto';
import { attribute, captureEventId, shareOf, weiToDecimal } from './measure.js';

describe('measuring and crediting a capture', () => {
  it('credits each capture its bid when the gain covers them, else shares the gain in proportion, rounded down', () => {
    const bids = new Map([
      ['a', 3n],
      ['b', 1n],
    ]);
    expect([...attribute(10n, bids)]).toEqual([
      ['a', 3n],
      ['b', 1n],
    ]);
    expect([...attribute(2n, bids)]).toEqual([
      ['a', 1n],
      ['b', 0n],
    ]);
    expect([...attribute(-5n, bids)]).toEqual([
      ['a', 0n],
      ['b', 0n],
    ]);
  });

  it("takes the source's share in basis points, exactly, and writes wei as a decimal of the coin", () => {
    expect(shareOf(10n ** 16n, 9_000)).toBe(9n * 10n ** 15n);
    expect(shareOf(1n, 9_000)).toBe(0n);
    expect(weiToDecimal(9n * 10n ** 15n)).toBe('0.009');
    expect(weiToDecimal(123456789012345678901n)).toBe('123.456789012345678901');
    expect(weiToDecimal(0n)).toBe('0');
  });

  it('names the event of a target the same every time (the dedupe of a replay), differently per chain and hash', () => {
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const a = captureEventId(1, `0x${'ab'.repeat(32)}`, sha);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(captureEventId(1, `0x${'AB'.repeat(32)}`, sha)).toBe(a);
    expect(captureEventId(56, `0x${'ab'.repeat(32)}`, sha)).not.toBe(a);
  });
});
