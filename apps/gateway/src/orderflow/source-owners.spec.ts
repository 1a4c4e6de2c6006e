import type { ServiceClient } from '../nats/service-client.js';
import { SourceOwners } from './source-owners.js';

describe('SourceOwners (whether a key may send order flow for a source)', () => {
  it('asks the payout service once per key and source within 5 s, again once the clock has moved past it', async () => {
    let now = 1_000_000;
    const asked: unknown[] = [];
    const services = { forward: (_route: unknown, message: unknown) => (asked.push(message), Promise.resolve({ id: 'src', tenantId: 't' })) };
    const owners = new SourceOwners(services as unknown as ServiceClient, () => now);
    const viewer = { tenantId: 't', admin: false, keyId: 'k' };
    await owners.check(viewer, 'src', 'r1');
    now += 4_999;
    await owners.check(viewer, 'src', 'r2');
    expect(asked).toHaveLength(1);
    now += 1;
    await owners.check(viewer, 'src', 'r3');
    expect(asked).toEqual([
      { viewer, id: 'src' },
      { viewer, id: 'src' },
    ]);
  });
});
