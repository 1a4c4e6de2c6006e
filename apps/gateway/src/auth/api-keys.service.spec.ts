import type { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeyAdminError, ApiKeysService, hashKey } from './api-keys.service.js';
import type { Principal } from './scopes.js';

/** In-memory stand-in for the key tables. */
class FakeKeys {
  tenants = new Map<string, string>();
  keys = new Map<string, Principal & { revoked: boolean }>();
  lookups = 0;

  async findActiveByHash(hash: string) {
    this.lookups++;
    const k = this.keys.get(hash);
    return k && !k.revoked ? { keyId: k.keyId, tenantId: k.tenantId, scopes: k.scopes, rateLimitPerSecond: k.rateLimitPerSecond } : null;
  }
  async findTenantByName(name: string) {
    return this.tenants.get(name) ?? null;
  }
  async insertTenant(id: string, name: string) {
    if (this.tenants.has(name)) return null;
    this.tenants.set(name, id);
    return id;
  }
  async insertKey(k: { id: string; tenantId: string; keyHash: string; scopes: Principal['scopes']; rateLimitPerSecond: number | null }) {
    this.keys.set(k.keyHash, { keyId: k.id, tenantId: k.tenantId, scopes: k.scopes, rateLimitPerSecond: k.rateLimitPerSecond, revoked: false });
  }
  async revokeByHash(hash: string) {
    const k = this.keys.get(hash);
    if (!k || k.revoked) return false;
    k.revoked = true;
    return true;
  }
}

describe('ApiKeysService', () => {
  const make = (ttl = 0) => {
    const repo = new FakeKeys();
    return { repo, service: new ApiKeysService(repo as unknown as ApiKeysRepository, { API_KEY_CACHE_TTL_MS: ttl }) };
  };

  it('issues a key that resolves to its tenant with every scope but admin by default', async () => {
    const { service } = make();
    const { key, tenantId } = await service.create({ name: 'bot' });
    expect(key).toMatch(/^ti_[A-Za-z0-9_-]{43}$/);
    expect(await service.authenticate(key)).toMatchObject({ tenantId, scopes: ['intents:read', 'intents:write', 'payouts:read', 'payouts:write', 'simulate'] });
  });

  it('never stores the key itself', async () => {
    const { repo, service } = make();
    const { key } = await service.create({ name: 'bot' });
    expect([...repo.keys.keys()]).toEqual([hashKey(key)]);
  });

  it('refuses a second own tenant of the same name, but adds keys to a named tenant', async () => {
    const { service } = make();
    const first = await service.create({ name: 'acme' });
    await expect(service.create({ name: 'acme' })).rejects.toThrow(ApiKeyAdminError);
    const second = await service.create({ name: 'acme-2', tenant: 'acme' });
    expect(second.tenantId).toBe(first.tenantId);
  });

  it('rejects malformed keys without a lookup, and revoked keys after the cache TTL', async () => {
    const { repo, service } = make(60_000);
    expect(await service.authenticate('not-a-key')).toBeNull();
    expect(repo.lookups).toBe(0);
    const { key } = await service.create({ name: 'bot', scopes: ['admin'] });
    expect(await service.authenticate(key)).not.toBeNull();
    expect(await service.authenticate(key)).not.toBeNull();
    expect(repo.lookups).toBe(1);
    expect(await service.revoke(key)).toBe(true);
    expect(await service.revoke(key)).toBe(false);
    const uncached = new ApiKeysService(repo as unknown as ApiKeysRepository, { API_KEY_CACHE_TTL_MS: 0 });
    expect(await uncached.authenticate(key)).toBeNull();
  });
});
