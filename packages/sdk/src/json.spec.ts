import { decimalString, parseExact, stringifyBody } from './json.js';

describe('exact JSON', () => {
  it('turns the money of payout answers into exact decimal strings, leaves the rest as numbers', () => {
    const text =
      '[{"id":"e1","amount":123456789.123456789012345678,"chainId":1,"balances":[{"chainId":56,"pending":0.1,"claimable":1e-18,"paid":12345678901234567890123}]},' +
      '{"entryCount":3,"estimatedUsd":19.99,"big":123456789012345678901}]';
    expect(parseExact(text)).toEqual([
      {
        id: 'e1',
        amount: '123456789.123456789012345678',
        chainId: 1,
        balances: [{ chainId: 56, pending: '0.1', claimable: '0.000000000000000001', paid: '12345678901234567890123' }],
      },
      { entryCount: 3, estimatedUsd: '19.99', big: 123456789012345678901n },
    ]);
  });

  it('expands exponents without rounding', () => {
    expect(decimalString('1.5e3')).toBe('1500');
    expect(decimalString('0.5e1')).toBe('5');
    expect(decimalString('1.5e-3')).toBe('0.0015');
    expect(decimalString('-2E+2')).toBe('-200');
    expect(decimalString('0e5')).toBe('0');
    expect(decimalString('0.015')).toBe('0.015');
  });

  it('sends bigints as decimal strings', () => {
    expect(stringifyBody({ buyAmount: 2n ** 255n, nested: [1n] })).toBe(`{"buyAmount":"${2n ** 255n}","nested":["1"]}`);
  });
});
