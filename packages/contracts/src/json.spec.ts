import { parseJson, stringifyJson } from './json.js';
import { parseInput } from './validation.js';
import { SimulateRequestSchema } from './simulation.js';
import { createIntentRequestSchema } from './intents.js';

describe('parseJson', () => {
  it('keeps integers beyond 2^53-1 exact, as bigints', () => {
    expect(parseJson('{"balance": 123456789012345678901, "n": [5000000000000000000, -99999999999999999999]}')).toEqual({
      balance: 123456789012345678901n,
      n: [5000000000000000000n, -99999999999999999999n],
    });
  });

  it('reads every way of writing an integer exactly, exponents included', () => {
    expect(parseJson('[1e30, 1.5E+30, 25e-1, 9007199254740993, 9007199254740991]')).toEqual([
      10n ** 30n,
      15n * 10n ** 29n,
      2.5,
      9007199254740993n,
      9007199254740991,
    ]);
  });

  it('gives safe integers and fractions as numbers, like JSON.parse', () => {
    const text = '{"chainId": 1, "tax": 0.05, "neg": -3, "s": "123456789012345678901", "nested": {"a": [1, 2.5]}}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it('reads a long digit run inside a string as the string', () => {
    expect(parseJson('{"a": ":12345678901234567890", "b": 1}')).toEqual({ a: ':12345678901234567890', b: 1 });
  });

  it('refuses what JSON.parse refuses', () => {
    for (const bad of ['{', '{"a": 12345678901234567890', '[1e30,]', '', 'nul']) expect(() => parseJson(bad)).toThrow();
  });

  it('never sets an object prototype from a __proto__ key', () => {
    const value = parseJson('{"__proto__": {"polluted": true}, "a": 12345678901234567890}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect((value as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('stringifyJson', () => {
  it('writes bigints as bare integers and round-trips through parseJson', () => {
    const value = { pattern: 's', data: { body: { balance: 123456789012345678901n, nonce: 3, tax: 0.5, s: 'x' } }, id: '1' };
    const text = stringifyJson(value);
    expect(text).toContain('"balance":123456789012345678901');
    expect(parseJson(text)).toEqual(value);
  });

  it('is JSON.stringify when there is no bigint', () => {
    const value = { a: [1, 'b', null, { c: true }] };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });
});

describe('big JSON integers at the schemas', () => {
  const call = { from: '0x' + '11'.repeat(20), to: '0x' + '22'.repeat(20) };

  it('an override balance given as a bare big number is that many wei', () => {
    const body = parseJson(
      `{"chainId": 1, "calls": [{"from": "${call.from}", "to": "${call.to}"}], "overrides": {"accounts": {"${call.from}": {"balance": 123456789012345678901}}}}`,
    );
    const request = parseInput(SimulateRequestSchema, body);
    expect(request.overrides?.accounts?.[call.from]?.balance).toBe(123456789012345678901n);
  });

  it('a nonce or chain id beyond 2^53-1 is refused, saying so', () => {
    const body = parseJson(`{"chainId": 18446744073709551617, "calls": [{"from": "${call.from}", "nonce": 9007199254740993}]}`);
    expect(() => parseInput(SimulateRequestSchema, body)).toThrow(/chainId: must be a positive integer chain id \(18446744073709551617 is beyond 2\^53-1/);
    try {
      parseInput(SimulateRequestSchema, body);
    } catch (err) {
      expect((err as { issues: { path: string; message: string }[] }).issues).toEqual([
        { path: 'chainId', message: expect.stringContaining('is beyond 2^53-1') },
        { path: 'calls.0.nonce', message: expect.stringContaining('9007199254740993 is beyond 2^53-1') },
      ]);
    }
  });

  it('an intent expiry beyond 2^53-1 is refused, saying so', () => {
    const schema = createIntentRequestSchema({ chainIds: [1], now: () => 0 });
    const result = schema.safeParse({ expiry: 10n ** 20n });
    expect(result.success).toBe(false);
    const messages = result.error!.issues.filter((i) => i.path[0] === 'expiry').map((i) => i.message);
    expect(messages).toEqual([expect.stringContaining('100000000000000000000 is beyond 2^53-1')]);
  });
});
