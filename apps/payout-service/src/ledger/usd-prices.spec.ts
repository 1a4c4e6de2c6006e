import { centsText, scaled } from './usd-prices.js';

describe('USD arithmetic', () => {
  it('scales decimal amounts by 10^18 exactly', () => {
    expect(scaled('0')).toBe(0n);
    expect(scaled('1.5')).toBe(15n * 10n ** 17n);
    expect(scaled('0.000000000000000001')).toBe(1n);
    expect(scaled('123456789012345678901234567890.123456789012345678')).toBe(123456789012345678901234567890123456789012345678n);
    expect(() => scaled('0.0000000000000000001')).toThrow(RangeError);
    expect(() => scaled('-1')).toThrow(RangeError);
  });

  it('writes a value in dollars rounded down to cents, without trailing zeros', () => {
    expect(centsText(scaled('1520.5'))).toBe('1520.5');
    expect(centsText(scaled('1520'))).toBe('1520');
    expect(centsText(scaled('0.079'))).toBe('0.07');
    expect(centsText(scaled('0.009'))).toBe('0');
    expect(centsText(scaled('30.10'))).toBe('30.1');
  });
});
