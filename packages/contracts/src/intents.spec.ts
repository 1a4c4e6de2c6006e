import {
  BulkCancelRequestSchema,
  ContractValidationError,
  createIntentRequestSchema,
  createWalletIntentRequestSchema,
  createIntentsBatchRequestSchema,
  decodeSearchCursor,
  encodeSearchCursor,
  parseInput,
  resolvedWebhookProtocol,
  SearchIntentsRequestSchema,
  TenantSearchIntentsRequestSchema,
} from './index.js';

const NOW_MS = 1_800_000_000_000;
const schema = createIntentRequestSchema({ chainIds: [1, 56, 137], now: () => NOW_MS });
const WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const valid = {
  chainId: 1,
  wallet: WALLET,
  tokenAddress: WALLET.toLowerCase(),
  bribe: '0',
  buyAmount: '1000000000000000000',
  expiry: NOW_MS / 1000 + 3600,
};

function issuesOf(input: unknown, s: Parameters<typeof parseInput>[0] = schema) {
  try {
    parseInput(s, input);
  } catch (err) {
    expect(err).toBeInstanceOf(ContractValidationError);
    return (err as ContractValidationError).issues;
  }
  throw new Error('expected a validation error');
}

describe('createIntentRequestSchema', () => {
  it('normalises addresses to EIP-55 and fills unset optional fields with null', () => {
    const parsed = parseInput(schema, valid);
    expect(parsed.tokenAddress).toBe(WALLET);
    expect(parsed.maxBuyTax).toBeNull();
    expect(parsed.feeRecipient).toBeNull();
  });

  it('accepts the largest uint256 and rejects one more', () => {
    const max = ((1n << 256n) - 1n).toString();
    expect(parseInput(schema, { ...valid, buyAmount: max }).buyAmount).toBe(max);
    expect(issuesOf({ ...valid, buyAmount: (1n << 256n).toString() })).toEqual([{ path: 'buyAmount', message: 'must be at most 2^256-1' }]);
  });

  it.each([
    ['bribe', 1, 'must be wei as a decimal integer string'],
    ['bribe', '-1', 'must be wei as a decimal integer string (digits only, no sign, no leading zeros)'],
    ['bribe', '1.5', 'must be wei as a decimal integer string (digits only, no sign, no leading zeros)'],
    ['bribe', '01', 'must be wei as a decimal integer string (digits only, no sign, no leading zeros)'],
    ['chainId', 10, 'must be one of the supported chains: 1, 56, 137'],
    ['chainId', '1', 'must be a positive integer chain id from 1 to 9007199254740991'],
    ['wallet', '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'has an invalid EIP-55 checksum'],
    ['wallet', '0x123', 'must be a 0x-prefixed 20-byte hex address'],
    ['maxBuyTax', 1.01, 'must be a number from 0 to 1'],
    ['maxSellTax', -0.1, 'must be a number from 0 to 1'],
    ['feeBps', 10_001, 'must be basis points from 0 to 10000'],
    ['maxSlippageBps', 1.5, 'must be basis points from 0 to 10000'],
    ['firstOrFail', 'yes', 'must be true or false'],
    ['expiry', NOW_MS / 1000, 'must be in the future (now is 1800000000)'],
    ['expiry', NOW_MS / 1000 + 30 * 86400 + 1, 'must be at most 30 days ahead'],
  ])('rejects %s = %j', (field, value, message) => {
    expect(issuesOf({ ...valid, [field]: value })).toEqual([{ path: field, message }]);
  });

  it('names every missing required field and every unknown field', () => {
    expect(issuesOf({ extra: 1 })).toEqual(
      expect.arrayContaining([
        { path: 'chainId', message: 'is required' },
        { path: 'wallet', message: 'is required' },
        { path: 'tokenAddress', message: 'is required' },
        { path: 'bribe', message: 'is required' },
        { path: 'buyAmount', message: 'is required' },
        { path: 'expiry', message: 'is required' },
        { path: 'extra', message: 'is not a known field' },
      ]),
    );
  });

  it('requires feeRecipient when feeBps is above 0', () => {
    expect(issuesOf({ ...valid, feeBps: 50 })).toEqual([{ path: 'feeRecipient', message: 'is required when feeBps is above 0' }]);
    expect(parseInput(schema, { ...valid, feeBps: 0 }).feeBps).toBe(0);
  });

  it('takes webhookBatch only with a signing webhook, and only as true or false', () => {
    expect(parseInput(schema, { ...valid, webhookUrl: 'https://example.com/sign', webhookBatch: true })).toMatchObject({ webhookBatch: true });
    expect(parseInput(schema, valid)).toMatchObject({ webhookBatch: null });
    expect(issuesOf({ ...valid, webhookBatch: true }, schema)).toEqual([
      { path: 'webhookBatch', message: 'needs a webhookUrl (the signing webhook that takes batches)' },
    ]);
    expect(issuesOf({ ...valid, webhookUrl: 'https://example.com/sign', webhookBatch: 'yes' }, schema)).toEqual([
      { path: 'webhookBatch', message: 'must be true or false' },
    ]);
  });

  it('rejects a body that is not an object', () => {
    expect(issuesOf([1])).toEqual([{ path: '', message: 'body must be a JSON object' }]);
  });
});

describe('webhookProtocol', () => {
  it('is Merkle’s by default, ours for a batching webhook or when asked, and needs a webhook', () => {
    const hook = { webhookUrl: 'https://signer.example.com/sign' };
    expect(resolvedWebhookProtocol(parseInput(schema, { ...valid, ...hook }))).toBe('merkle');
    expect(resolvedWebhookProtocol(parseInput(schema, { ...valid, ...hook, webhookBatch: true }))).toBe('tradeinfra');
    expect(resolvedWebhookProtocol(parseInput(schema, { ...valid, ...hook, webhookProtocol: 'tradeinfra' }))).toBe('tradeinfra');
    expect(resolvedWebhookProtocol(parseInput(schema, valid))).toBeNull();
    expect(issuesOf({ ...valid, webhookProtocol: 'merkle' }).map((i) => i.path)).toEqual(['webhookProtocol']);
    expect(issuesOf({ ...valid, ...hook, webhookProtocol: 'merkle', webhookBatch: true }).map((i) => i.path)).toEqual(['webhookBatch']);
    expect(issuesOf({ ...valid, ...hook, webhookProtocol: 'flashbots' })).toEqual([{ path: 'webhookProtocol', message: 'must be one of merkle, tradeinfra' }]);
  });
});

describe('createWalletIntentRequestSchema', () => {
  const walletSchema = createWalletIntentRequestSchema({ chainIds: [1, 56, 137], now: () => NOW_MS });
  const signature = `0x${'ab'.repeat(65)}`;

  it('takes the intent plus nonce and signature, and no signing webhook', () => {
    const parsed = parseInput(walletSchema, { ...valid, nonce: '7', signature });
    expect(parsed).toMatchObject({ nonce: '7', signature, minOut: null, firstOrFail: null });
    expect(issuesOf({ ...valid, nonce: '7', signature, webhookUrl: 'https://example.com/sign' }, walletSchema)).toEqual([
      { path: 'webhookUrl', message: 'is not a known field' },
    ]);
    expect(issuesOf({ ...valid, nonce: '7', signature, webhookBatch: true }, walletSchema)).toEqual([
      { path: 'webhookBatch', message: 'is not a known field' },
    ]);
  });

  it('requires a uint256 nonce (when one is given) and a 65-byte hex signature', () => {
    expect(issuesOf({ ...valid, nonce: '-1', signature }, walletSchema).map((i) => i.path)).toEqual(['nonce']);
    expect(issuesOf({ ...valid, nonce: (2n ** 256n).toString(), signature }, walletSchema).map((i) => i.path)).toEqual(['nonce']);
    for (const bad of ['0x1234', `0x${'ab'.repeat(66)}`, `0x${'zz'.repeat(65)}`, 'ab'.repeat(65), 12]) {
      expect(issuesOf({ ...valid, nonce: '1', signature: bad }, walletSchema).map((i) => i.path)).toEqual(['signature']);
    }
  });

  it('takes Merkle’s body without a nonce, and then refuses what Merkle’s 5-field BuyIntent does not bind', () => {
    const merkle = parseInput(walletSchema, { ...valid, signature, minIn: '5', maxBuyTax: 0.2, maxSlippageBps: 1000, gasTip: '1' });
    expect(merkle).toMatchObject({ nonce: null, minIn: '5', feeBps: null, minOut: null, firstOrFail: null });
    const unbound = { feeBps: 100, feeRecipient: WALLET, minOut: '1', firstOrFail: true };
    expect(issuesOf({ ...valid, signature, ...unbound }, walletSchema).map((i) => i.path)).toEqual(['feeBps', 'feeRecipient', 'minOut', 'firstOrFail']);
    expect(issuesOf({ ...valid, signature, firstOrFail: false }, walletSchema)[0]!.message).toMatch(/not part of Merkle's 5-field BuyIntent/);
    // With a nonce (our struct) they are bound, so allowed.
    expect(parseInput(walletSchema, { ...valid, signature, nonce: '1', ...unbound })).toMatchObject({ nonce: '1', feeBps: 100, firstOrFail: true });
  });

  it('keeps the rules of a bot intent (fee recipient with a fee)', () => {
    expect(issuesOf({ ...valid, nonce: '1', signature, feeBps: 100 }, walletSchema).map((i) => i.path)).toEqual(['feeRecipient']);
  });
});

describe('SearchIntentsRequestSchema', () => {
  it('defaults to pending, limit 100, and accepts any letter case', () => {
    const parsed = parseInput(SearchIntentsRequestSchema, { addresses: [WALLET.toUpperCase().replace('0X', '0x')] });
    expect(parsed).toEqual({ addresses: [WALLET], status: ['pending'], limit: 100, cursor: null });
  });

  it('rejects empty, oversized and malformed address lists and unknown statuses', () => {
    expect(issuesOf({ addresses: [] }, SearchIntentsRequestSchema)).toEqual([{ path: 'addresses', message: 'must hold at least one address' }]);
    expect(issuesOf({ addresses: Array(101).fill(WALLET) }, SearchIntentsRequestSchema)).toEqual([
      { path: 'addresses', message: 'must hold at most 100 addresses' },
    ]);
    expect(issuesOf({ addresses: [WALLET, 'nope'] }, SearchIntentsRequestSchema)).toEqual([
      { path: 'addresses.1', message: 'must be a 0x-prefixed 20-byte hex address' },
    ]);
    expect(issuesOf({ addresses: [WALLET], status: ['done'] }, SearchIntentsRequestSchema)).toEqual([
      { path: 'status.0', message: 'must be one of pending, completed, expired, failed, cancelled, error' },
    ]);
    expect(issuesOf({ addresses: [WALLET], limit: 501 }, SearchIntentsRequestSchema)).toEqual([{ path: 'limit', message: 'must be an integer from 1 to 500' }]);
  });
});

describe('TenantSearchIntentsRequestSchema (dashboard tokens)', () => {
  it('takes no addresses (every wallet of the tenant), or some, validated as the search does', () => {
    expect(parseInput(TenantSearchIntentsRequestSchema, {})).toEqual({ addresses: [], status: ['pending'], limit: 100, cursor: null });
    expect(parseInput(TenantSearchIntentsRequestSchema, { addresses: [WALLET.toLowerCase()] }).addresses).toEqual([WALLET]);
    expect(issuesOf({ addresses: ['nope'] }, TenantSearchIntentsRequestSchema)).toEqual([
      { path: 'addresses.0', message: 'must be a 0x-prefixed 20-byte hex address' },
    ]);
    expect(issuesOf({ addresses: [], extra: 1 }, TenantSearchIntentsRequestSchema)).toEqual([{ path: 'extra', message: 'is not a known field' }]);
  });
});

describe('search cursor', () => {
  it('round-trips an id and refuses anything else', () => {
    const id = '0190f3a2-7b1c-7def-8abc-0123456789ab';
    expect(decodeSearchCursor(encodeSearchCursor(id))).toBe(id);
    expect(decodeSearchCursor('bm90LWEtdXVpZA')).toBeNull();
    expect(decodeSearchCursor('%%%')).toBeNull();
  });
});

describe('createIntentsBatchRequestSchema', () => {
  const batch = createIntentsBatchRequestSchema({ chainIds: [1, 56, 137], now: () => NOW_MS });

  it('parses each item exactly as a single create, keeping the order', () => {
    const parsed = parseInput(batch, [valid, { ...valid, buyAmount: '2' }, { ...valid, chainId: 56 }]);
    expect(parsed.map((i) => [i.chainId, i.buyAmount, i.tokenAddress])).toEqual([
      [1, '1000000000000000000', WALLET],
      [1, '2', WALLET],
      [56, '1000000000000000000', WALLET],
    ]);
    expect(parsed[0]).toEqual(parseInput(schema, valid));
  });

  it('names a bad item by its index', () => {
    expect(issuesOf([valid, valid, valid, { ...valid, buyAmount: '1.5', chainId: 10 }, { ...valid, extra: 1 }], batch)).toEqual([
      { path: '3.chainId', message: 'must be one of the supported chains: 1, 56, 137' },
      { path: '3.buyAmount', message: 'must be wei as a decimal integer string (digits only, no sign, no leading zeros)' },
      { path: '4.extra', message: 'is not a known field' },
    ]);
    expect(issuesOf([valid, 7, null], batch)).toEqual([
      { path: '1', message: 'must be an intent (a JSON object)' },
      { path: '2', message: 'must be an intent (a JSON object)' },
    ]);
  });

  it('takes 1 to 100 intents and refuses other bodies for their shape alone', () => {
    expect(parseInput(batch, Array(100).fill(valid))).toHaveLength(100);
    expect(issuesOf(Array(101).fill(valid), batch)).toEqual([{ path: '', message: 'must hold at most 100 intents (it holds 101); split the batch' }]);
    expect(issuesOf(Array(101).fill('junk'), batch)).toHaveLength(1);
    expect(issuesOf([], batch)).toEqual([{ path: '', message: 'must be an array of 1 to 100 intents' }]);
    expect(issuesOf(valid, batch)).toEqual([{ path: '', message: 'body must be a JSON array' }]);
  });
});

describe('BulkCancelRequestSchema', () => {
  const id = '0190f3a2-7b1c-7def-8abc-0123456789ab';
  const other = '0190f3a2-7b1c-7def-8abc-0123456789ac';

  it('lowercases ids and keeps their order', () => {
    expect(parseInput(BulkCancelRequestSchema, { ids: [other, id.toUpperCase()] })).toEqual({ ids: [other, id] });
  });

  it('refuses the same id twice, in any letter case, naming the repeat', () => {
    expect(issuesOf({ ids: [id, other, id.toUpperCase()] }, BulkCancelRequestSchema)).toEqual([
      { path: 'ids.2', message: 'repeats ids.0: name each intent once' },
    ]);
  });

  it('takes 1 to 500 ids', () => {
    const many = Array.from({ length: 501 }, (_, i) => `0190f3a2-7b1c-7def-8abc-${i.toString(16).padStart(12, '0')}`);
    expect(parseInput(BulkCancelRequestSchema, { ids: many.slice(0, 500) }).ids).toHaveLength(500);
    expect(issuesOf({ ids: many }, BulkCancelRequestSchema)).toEqual([{ path: 'ids', message: 'must hold 1 to 500 intent ids' }]);
    expect(issuesOf({ ids: [] }, BulkCancelRequestSchema)).toEqual([{ path: 'ids', message: 'must hold 1 to 500 intent ids' }]);
    expect(issuesOf({}, BulkCancelRequestSchema)).toEqual([{ path: 'ids', message: 'is required' }]);
    expect(issuesOf({ ids: [id, 'nope'], more: 1 }, BulkCancelRequestSchema)).toEqual([
      { path: 'ids.1', message: 'must be an intent id (UUID)' },
      { path: 'more', message: 'is not a known field' },
    ]);
  });
});
