import { jsonTextIssues, lenientText, queryIssues, utf8 } from './input-text.js';

describe('queryIssues', () => {
  it('accepts ordinary query strings, + for space and encoded Unicode', () => {
    expect(queryIssues('/v1/payouts')).toEqual([]);
    expect(queryIssues('/v1/payouts?')).toEqual([]);
    expect(queryIssues('/v1/payouts?limit=10&sourceId=a+b&x=%E2%82%AC&flag&&y=')).toEqual([]);
  });

  it.each([
    ['a NUL value', '/x?tenant=a%00b', 'query.tenant', 'must not contain NUL (\\u0000)'],
    ['a NUL name', '/x?a%00=1', 'query.a%00', 'must not contain NUL (\\u0000)'],
    ['a byte that is not UTF-8', '/x?sourceId=%FF', 'query.sourceId', 'is not valid percent-encoded UTF-8'],
    ['an overlong encoding', '/x?s=%C0%80', 'query.s', 'is not valid percent-encoded UTF-8'],
    ['an encoded surrogate', '/x?s=%ED%A0%80', 'query.s', 'is not valid percent-encoded UTF-8'],
    ['a broken escape', '/x?limit=%', 'query.limit', 'is not valid percent-encoded UTF-8'],
    ['a truncated sequence', '/x?s=%E2%82', 'query.s', 'is not valid percent-encoded UTF-8'],
  ])('names %s', (_desc, url, path, message) => {
    expect(queryIssues(url)).toEqual([{ path, message }]);
  });
});

describe('jsonTextIssues', () => {
  it('finds NUL and unpaired surrogates in values and keys, by path', () => {
    const value = {
      tenant: 'a\u0000b',
      ok: 'ünïcødé 🚀',
      list: ['fine', 'x\ud800y', 'z\udc00'],
      nested: { 'k\u0000': 1, deep: [{ s: '\ud83d' }] },
      n: 12,
      big: 10n ** 30n,
    };
    expect(jsonTextIssues(value)).toEqual([
      { path: 'tenant', message: 'must not contain NUL (\\u0000)' },
      { path: 'list.1', message: 'must be valid Unicode text (it holds an unpaired surrogate)' },
      { path: 'list.2', message: 'must be valid Unicode text (it holds an unpaired surrogate)' },
      { path: 'nested.k\\u0000', message: 'must not contain NUL (\\u0000)' },
      { path: 'nested.deep.0.s', message: 'must be valid Unicode text (it holds an unpaired surrogate)' },
    ]);
  });

  it('is empty for clean input, and bounded for a body full of problems', () => {
    expect(jsonTextIssues({ a: ['x', { b: 'y' }], c: null, d: true })).toEqual([]);
    expect(jsonTextIssues(Array.from({ length: 10_000 }, () => '\u0000'))).toHaveLength(20);
  });

  it('walks deep nesting without recursion', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(jsonTextIssues(deep)).toHaveLength(1);
  });
});

describe('utf8', () => {
  it('decodes UTF-8 and refuses anything else', () => {
    expect(utf8(Buffer.from('{"a":"€"}'))).toBe('{"a":"€"}');
    expect(utf8(Buffer.from([0x7b, 0xff, 0x7d]))).toBeNull();
    expect(utf8(Buffer.from([0xc0, 0x80]))).toBeNull(); // overlong NUL
    expect(utf8(Buffer.from([0xed, 0xa0, 0x80]))).toBeNull(); // encoded surrogate
  });

  it('marks the bytes that are not UTF-8 so the fields holding them can be named', () => {
    const body = Buffer.concat([Buffer.from('{"a":"ok","b":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    expect(jsonTextIssues(JSON.parse(lenientText(body)), '\uFFFD')).toEqual([{ path: 'b', message: 'is not valid UTF-8' }]);
  });
});
