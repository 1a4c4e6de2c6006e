import { createIntentRequestSchema, SearchIntentsRequestSchema } from './intents.js';
import { parseInput, textProblem } from './validation.js';

describe('textProblem', () => {
  it.each([
    ['plain', null],
    ['ünïcødé 日本語 🚀', null],
    ['', null],
    ['a\u0000b', 'must not contain NUL (\\u0000)'],
    ['\ud800', 'must be valid Unicode text (it holds an unpaired surrogate)'],
    ['x\udc00', 'must be valid Unicode text (it holds an unpaired surrogate)'],
    ['\udc00\ud800', 'must be valid Unicode text (it holds an unpaired surrogate)'],
  ])('%j → %s', (value, problem) => {
    expect(textProblem(value)).toBe(problem);
  });
});

describe('free text in the intent contracts', () => {
  const now = 1_700_000_000_000;
  const body = {
    chainId: 1,
    wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    tokenAddress: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    bribe: '1',
    buyAmount: '1',
    expiry: now / 1000 + 3600,
  };
  const schema = createIntentRequestSchema({ chainIds: [1], now: () => now });

  it('a webhook URL with a NUL is refused (URL parsing would strip a leading or trailing one)', () => {
    for (const url of ['\u0000https://example.com/hook', 'https://example.com/hook\u0000', 'https://example.com/\u0000']) {
      expect(() => parseInput(schema, { ...body, notificationWebhookUrl: url })).toThrow(/notificationWebhookUrl/);
      expect(() => parseInput(schema, { ...body, webhookUrl: url })).toThrow(/webhookUrl/);
    }
    expect(parseInput(schema, { ...body, webhookUrl: 'https://example.com/hook' }).webhookUrl).toBe('https://example.com/hook');
  });

  it('a search cursor with a NUL is refused', () => {
    expect(() => parseInput(SearchIntentsRequestSchema, { addresses: [body.wallet], cursor: 'abc\u0000' })).toThrow(/cursor/);
  });
});
