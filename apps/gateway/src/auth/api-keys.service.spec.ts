import { randomBytes } from 'node:crypto';
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
    expect(await service.authenticate(key)).toMatchObject({
      tenantId,
      scopes: ['intents:read', 'intents:write', 'payouts:read', 'payouts:write', 'simulate', 'rpc'],
    });
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

describe('ApiKeysService caches', () => {
  const make = (env: { API_KEY_CACHE_TTL_MS: number; UNKNOWN_KEY_CACHE_TTL_MS?: number }) => {
    const repo = new FakeKeys();
    return { repo, service: new ApiKeysService(repo as unknown as ApiKeysRepository, env) };
  };
  const madeUp = () => `ti_${randomBytes(32).toString('base64url')}`;

  it('remembers an unknown key: asking again costs no lookup until UNKNOWN_KEY_CACHE_TTL_MS', async () => {
    const { repo, service } = make({ API_KEY_CACHE_TTL_MS: 0, UNKNOWN_KEY_CACHE_TTL_MS: 60_000 });
    const key = madeUp();
    for (let i = 0; i < 50; i++) expect(await service.authenticate(key)).toBeNull();
    expect(repo.lookups).toBe(1);
  });

  it('a flood of made-up keys neither reaches the database twice per key nor evicts a good key', async () => {
    const { repo, service } = make({ API_KEY_CACHE_TTL_MS: 60_000, UNKNOWN_KEY_CACHE_TTL_MS: 60_000 });
    const { key } = await service.create({ name: 'bot' });
    expect(await service.authenticate(key)).not.toBeNull();
    const flood = Array.from({ length: 12_000 }, madeUp);
    for (const k of flood) await service.authenticate(k);
    const lookups = repo.lookups;
    expect(await service.authenticate(key)).not.toBeNull();
    expect(repo.lookups).toBe(lookups); // still cached
  });

  it('knows a key once it authenticated, and forgets it once it is refused', async () => {
    const { service } = make({ API_KEY_CACHE_TTL_MS: 0, UNKNOWN_KEY_CACHE_TTL_MS: 0 });
    const { key } = await service.create({ name: 'bot' });
    expect(service.isKnown(key)).toBe(false);
    await service.authenticate(key);
    expect(service.isKnown(key)).toBe(true);
    expect(service.isKnown(madeUp())).toBe(false);
    expect(service.isKnown('not-a-key')).toBe(false);
    await service.revoke(key);
    expect(await service.authenticate(key)).toBeNull();
    expect(service.isKnown(key)).toBe(false);
  });
});
