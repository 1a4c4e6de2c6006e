import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { uuidv7 } from 'uuidv7';
import { ENV, type GatewayEnv } from '../config/env.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { DEFAULT_SCOPES, type Principal, type Scope } from './scopes.js';

const KEY_PREFIX = 'ti_';
/** Keys are `ti_` + 43 base64url characters (32 random bytes). */
const KEY_SHAPE = /^ti_[A-Za-z0-9_-]{43}$/;
const CACHE_MAX_ENTRIES = 10_000;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export class ApiKeyAdminError extends Error {}

/**
 * Issues, revokes and resolves API keys. Lookups are cached for API_KEY_CACHE_TTL_MS (misses
 * too, so a flood of bad keys does not reach the database): a revoked key stops working on
 * every replica within that time.
 */
@Injectable()
export class ApiKeysService {
  private readonly cache = new Map<string, { principal: Principal | null; expiresAt: number }>();

  constructor(
    private readonly keys: ApiKeysRepository,
    @Inject(ENV) private readonly env: Pick<GatewayEnv, 'API_KEY_CACHE_TTL_MS'>,
  ) {}

  async authenticate(key: string): Promise<Principal | null> {
    if (!KEY_SHAPE.test(key)) return null;
    const hash = hashKey(key);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.principal;
    const principal = await this.keys.findActiveByHash(hash);
    if (this.env.API_KEY_CACHE_TTL_MS > 0) {
      if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
      this.cache.set(hash, { principal, expiresAt: now + this.env.API_KEY_CACHE_TTL_MS });
    }
    return principal;
  }

  /** Creates a key (and its tenant when needed); returns the key, which is never stored. */
  async create(options: { name: string; scopes?: readonly Scope[]; tenant?: string; rateLimitPerSecond?: number | null }): Promise<{ key: string; tenantId: string }> {
    const tenantName = options.tenant ?? options.name;
    let tenantId: string | null;
    if (options.tenant) {
      tenantId = (await this.keys.findTenantByName(tenantName)) ?? (await this.keys.insertTenant(uuidv7(), tenantName));
      tenantId ??= await this.keys.findTenantByName(tenantName);
    } else {
      tenantId = await this.keys.insertTenant(uuidv7(), tenantName);
      if (!tenantId) {
        throw new ApiKeyAdminError(`tenant "${tenantName}" already exists: pass --tenant ${tenantName} to add a key to it`);
      }
    }
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    await this.keys.insertKey({
      id: uuidv7(),
      tenantId: tenantId!,
      name: options.name,
      prefix: key.slice(0, 10),
      keyHash: hashKey(key),
      scopes: options.scopes ?? DEFAULT_SCOPES,
      rateLimitPerSecond: options.rateLimitPerSecond ?? null,
    });
    return { key, tenantId: tenantId! };
  }

  async revoke(key: string): Promise<boolean> {
    return this.keys.revokeByHash(hashKey(key));
  }
}
