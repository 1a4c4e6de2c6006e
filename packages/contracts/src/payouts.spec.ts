import { ListEntriesQuerySchema, MevCaptureEventSchema, RegisterSourceSchema, RequestPayoutSchema } from './payouts.js';
import { parseInput } from './validation.js';

const issues = (schema: Parameters<typeof parseInput>[0], input: unknown) => {
  try {
    parseInput(schema, input);
    return [];
  } catch (err) {
    return (err as { issues: Array<{ path: string; message: string }> }).issues;
  }
};

describe('ListEntriesQuerySchema (query of GET /v1/payouts): what reaches SQL is in range', () => {
  it.each([
    [{ chainId: '10000000000000000' }, 'chainId', 'must be a positive integer chain id from 1 to 2147483647'],
    [{ chainId: '2147483648' }, 'chainId', 'must be a positive integer chain id from 1 to 2147483647'],
    [{ chainId: '0' }, 'chainId', 'must be a positive integer chain id from 1 to 2147483647'],
    [{ limit: '10000000000000000' }, 'limit', 'must be an integer from 1 to 500'],
    [{ limit: '501' }, 'limit', 'must be an integer from 1 to 500'],
    [{ limit: ['1', '2'] }, 'limit', 'must be given once'],
    [{ status: ['PAID', 'PENDING'] }, 'status', 'must be given once'],
    [{ from: '0000-01-01T00:00:00Z' }, 'from', 'must be the earliest createdAt as an ISO 8601 date-time (years 0001 to 9999)'],
    [{ to: '2023-02-29T00:00:00Z' }, 'to', 'must be the latest createdAt (exclusive) as an ISO 8601 date-time (years 0001 to 9999)'],
    [{ cursor: 'abc\u0000' }, 'cursor', 'must be the x-next-cursor value of the previous page'],
  ])('%j → %s: %s', (query, path, message) => {
    expect(issues(ListEntriesQuerySchema, query)).toEqual([{ path, message }]);
  });

  it('takes the bounds', () => {
    expect(parseInput(ListEntriesQuerySchema, { chainId: '2147483647', limit: '500', from: '0001-01-01T00:00:00Z', to: '9999-12-31T23:59:59Z' })).toEqual({
      chainId: 2147483647,
      limit: 500,
      from: '0001-01-01T00:00:00Z',
      to: '9999-12-31T23:59:59Z',
    });
  });
});

describe('payout bodies', () => {
  const event = {
    id: '0190a5c4-0000-7000-8000-000000000001',
    chainId: 1,
    txHash: `0x${'a'.repeat(64)}`,
    asset: 'ETH',
    amount: '1',
    type: 'mev',
    time: '2024-01-01T00:00:00Z',
  };

  it('a chain id past the ledger’s integer column is refused', () => {
    expect(issues(MevCaptureEventSchema, { ...event, chainId: 2 ** 31 }).map((i) => i.path)).toEqual(['chainId']);
    expect(issues(RequestPayoutSchema, { address: `0x${'1'.repeat(40)}`, chainId: 2 ** 31, asset: 'ETH' }).map((i) => i.path)).toEqual(['chainId']);
    expect(issues(MevCaptureEventSchema, { ...event, chainId: 2 ** 31 - 1 })).toEqual([]);
  });

  it('a payout request with chainId but no asset, or the reverse, names the missing field and what to send', () => {
    const address = `0x${'1'.repeat(40)}`;
    expect(issues(RequestPayoutSchema, { address, chainId: 1 })).toEqual([
      { path: 'asset', message: 'is required when chainId is sent: send both to pay one balance, or neither to pay every balance' },
    ]);
    expect(issues(RequestPayoutSchema, { address, asset: 'ETH' })).toEqual([
      { path: 'chainId', message: 'is required when asset is sent: send both to pay one balance, or neither to pay every balance' },
    ]);
    expect(issues(RequestPayoutSchema, { address })).toEqual([]);
  });

  it('a capture time Postgres cannot store is refused', () => {
    expect(issues(MevCaptureEventSchema, { ...event, time: '0000-06-01T00:00:00Z' }).map((i) => i.path)).toEqual(['time']);
    expect(issues(MevCaptureEventSchema, { ...event, time: '2024-04-31T00:00:00Z' }).map((i) => i.path)).toEqual(['time']);
  });

  it('a tenant name with NUL or an unpaired surrogate is refused', () => {
    expect(issues(RegisterSourceSchema, { id: 's', tenant: 'acme\u0000' })).toEqual([{ path: 'tenant', message: 'must not contain NUL (\\u0000)' }]);
    expect(issues(RegisterSourceSchema, { id: 's', tenant: 'acme\udfff' })).toEqual([
      { path: 'tenant', message: 'must be valid Unicode text (it holds an unpaired surrogate)' },
    ]);
    expect(issues(RegisterSourceSchema, { id: 's', tenant: 'acme 🚀' })).toEqual([]);
  });
});
