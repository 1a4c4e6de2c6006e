import { JsonTooDeepError, MAX_JSON_DEPTH, nestsDeeperThan, parseJson, parsePlainJson, stringifyJson } from './json.js';
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

describe('nesting depth (MAX_JSON_DEPTH)', () => {
  const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const objects = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

  it('takes 64 levels and refuses 65, of arrays, objects or both, before parsing anything', () => {
    expect(parseJson(arrays(MAX_JSON_DEPTH))).toBeInstanceOf(Array);
    expect(parseJson(objects(MAX_JSON_DEPTH, '12345678901234567890'))).toBeInstanceOf(Object);
    for (const text of [arrays(65), objects(65), `[${objects(64)}]`, objects(65, '12345678901234567890')]) {
      expect(() => parseJson(text)).toThrow(JsonTooDeepError);
      expect(() => parsePlainJson(text)).toThrow('JSON nests arrays and objects deeper than 64 levels');
    }
  });

  it('refuses 400,000 levels (closed or not, with exact numbers or not) where the exact parser overflowed the stack', () => {
    for (const text of [
      arrays(400_000),
      '['.repeat(400_000),
      objects(400_000, '12345678901234567890'),
      '{"a":['.repeat(200_000) + '1' + ']}'.repeat(200_000),
    ]) {
      expect(() => parseJson(text)).toThrow(JsonTooDeepError);
      expect(() => parsePlainJson(text)).toThrow(JsonTooDeepError);
    }
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const inString = JSON.stringify({ a: '['.repeat(1000), b: '\\"{{{{', c: ['\\', '"[['] });
    expect(nestsDeeperThan(inString, 2)).toBe(false);
    expect(parseJson(inString)).toEqual(JSON.parse(inString));
    expect(nestsDeeperThan('["\\\\", [[]]]', 2)).toBe(true); // the string ends after its two escaped backslashes
    expect(nestsDeeperThan('["\\"[[[[[["]', 2)).toBe(false); // one escaped quote: still inside the string
  });

  it('sees brackets after long runs of numbers and whitespace (which it jumps over)', () => {
    const numbers = (n: number) => Array.from({ length: n }, (_, i) => i * 12_345).join(',');
    expect(nestsDeeperThan(`[${numbers(1000)},[[${numbers(1000)}]]]`, 2)).toBe(true);
    expect(nestsDeeperThan(`[${numbers(1000)},[[${numbers(1000)}]]]`, 3)).toBe(false);
    expect(nestsDeeperThan(`[${' '.repeat(100)}[${' '.repeat(7)}["${'['.repeat(50)}"]]]`, 2)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify({ a: [[[1]]], b: 'x'.repeat(100) }, null, 20), 4)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: [[[[1]]]], b: 'x'.repeat(100) }, null, 20), 4)).toBe(true);
    expect(nestsDeeperThan(`[1,2,3${' '.repeat(100)}`, 0)).toBe(true);
  });

  it('agrees with the depth of the parsed value on 2,000 random texts (strings with brackets, escapes, runs, indentation)', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n) as number;
    const STRINGS = ['', '[', ']{', '"[', '\\', '\\"[{', 'x'.repeat(20), '[[[[[[[[[[', ' '.repeat(12)];
    const value = (depth: number): unknown => {
      const kind = depth > 12 ? random(3) : random(6);
      if (kind === 0) return random(2) ? random(1e9) : STRINGS[random(STRINGS.length)];
      if (kind === 1) return Array.from({ length: random(12) }, (_, i) => i * 1_234_567);
      if (kind === 2) return null;
      if (kind === 3) return Array.from({ length: random(4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: random(4) }, (_, i) => [STRINGS[random(STRINGS.length)]! + i, value(depth + 1)]));
    };
    const depthOf = (v: unknown): number =>
      v !== null && typeof v === 'object' ? 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(depthOf)) : 0;
    for (let i = 0; i < 2_000; i++) {
      const v = value(0);
      const text = JSON.stringify(v, null, random(3) === 0 ? random(12) : undefined);
      const depth = depthOf(v);
      expect({ text, deeper: nestsDeeperThan(text, depth - 1), notDeeper: nestsDeeperThan(text, depth) }).toEqual({
        text,
        deeper: depth > 0,
        notDeeper: false,
      });
    }
  });

  it('counts depth, not the number of arrays and objects', () => {
    const wide = JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ i, a: [i] })));
    expect(nestsDeeperThan(wide, 3)).toBe(false);
    expect(nestsDeeperThan(wide, 2)).toBe(true);
  });

  it('leaves text that is not JSON to the parser', () => {
    expect(nestsDeeperThan('"unterminated [[[[[[', 2)).toBe(false);
    expect(() => parseJson('{"a": ')).toThrow(SyntaxError);
  });
});
