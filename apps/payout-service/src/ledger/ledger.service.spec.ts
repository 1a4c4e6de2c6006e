import type { UsdPrices } from './usd-prices.js';
import { loadEnv } from '../config/env.js';
import { LedgerError, LedgerErrorCode } from './ledger.errors.js';
import type { LedgerRepository } from './ledger.repository.js';
import { LedgerService } from './ledger.service.js';

const env = loadEnv({});
const TENANT = '0190f3a2-7b1c-7def-8abc-0123456789ab';
const event = (o: Record<string, unknown> = {}) => ({
  id: '0190f3a2-7b1c-7def-8abc-000000000001',
  chainId: 1,
  txHash: `0x${'ab'.repeat(32)}`,
  sourceId: 'wallet',
  asset: 'ETH',
  amount: '1.5',
  type: 'mev',
  time: '2026-11-22T10:00:00Z',
  ...o,
});

/** Sources: `mine` registered to TENANT, `orphan` seen in entries but unregistered. */
const repo = {
  sourceTenant: async (id: string) => (id === 'mine' ? TENANT : id === 'orphan' ? null : undefined),
} as unknown as LedgerRepository;
const noPrices = {} as UsdPrices;
const service = new LedgerService(repo, env, noPrices);

function failure(fn: () => unknown): { path?: string; code?: string; name?: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof LedgerError) return { code: err.code, path: (err.details as { path: string }[])[0]?.path };
    return { name: (err as Error).name, path: (err as { issues?: { path: string }[] }).issues?.[0]?.path };
  }
  throw new Error('expected a failure');
}

describe('LedgerService.validateEvent', () => {
  it('accepts a valid event and normalises the hash', () => {
    expect(service.validateEvent(event({ txHash: `0x${'AB'.repeat(32)}` })).txHash).toBe(`0x${'ab'.repeat(32)}`);
  });

  it.each([
    [{ chainId: 10 }, 'chainId'],
    [{ asset: 'DOGE' }, 'asset'],
    [{ asset: 'USDC', amount: '1.0000001' }, 'amount'],
    [{ amount: '0' }, 'amount'],
    [{ amount: '-1' }, 'amount'],
    [{ amount: '1e5' }, 'amount'],
    [{ amount: 1.5 }, 'amount'],
    [{ txHash: '0x12' }, 'txHash'],
    [{ type: 'tip' }, 'type'],
    [{ time: 'yesterday' }, 'time'],
    [{ extra: true }, 'extra'],
  ])('refuses %j naming %s', (patch, path) => {
    expect(failure(() => service.validateEvent(event(patch))).path).toBe(path);
  });

  it('accepts exactly the asset’s decimals', () => {
    expect(service.validateEvent(event({ asset: 'USDC', amount: '1.000001' })).amount).toBe('1.000001');
    expect(service.validateEvent(event({ amount: '0.000000000000000001' })).amount).toBe('0.000000000000000001');
  });
});

describe('LedgerService.checkSource', () => {
  it('shows a tenant its own registered sources only; operators any known source', async () => {
    await expect(service.checkSource({ tenantId: TENANT, admin: false }, 'mine')).resolves.toBe(TENANT);
    for (const source of ['orphan', 'unknown']) {
      await expect(service.checkSource({ tenantId: TENANT, admin: false }, source)).rejects.toMatchObject({ code: LedgerErrorCode.NotFound });
    }
    await expect(service.checkSource({ tenantId: TENANT, admin: true }, 'orphan')).resolves.toBeNull();
    await expect(service.checkSource({ tenantId: TENANT, admin: true }, 'unknown')).rejects.toMatchObject({ code: LedgerErrorCode.NotFound });
  });
});

describe('LedgerService.apply', () => {
  it('keeps the first event seen with an id, in arrival order, whatever the later ones say', async () => {
    const inserted: { event: { id: string; amount: string } }[][] = [];
    const recording = new LedgerService(
      { insertEntries: async (rows: { event: { id: string; amount: string } }[]) => (inserted.push(rows), rows.length) } as unknown as LedgerRepository,
      env,
      noPrices,
    );
    const a = '0190f3a2-7b1c-7def-8abc-00000000000a';
    const b = '0190f3a2-7b1c-7def-8abc-00000000000b';
    const events = [event({ id: b, amount: '2' }), event({ id: a, amount: '1.5' }), event({ id: b, amount: '9' }), event({ id: a, amount: '0.1' })];
    expect(await recording.apply(events.map((e) => service.validateEvent(e)))).toBe(2);
    expect(inserted[0]!.map((r) => [r.event.id, r.event.amount])).toEqual([
      [a, '1.5'],
      [b, '2'],
    ]);
  });
});
