import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '@tradeinfra/service-kit';
import { uuidv7 } from 'uuidv7';
import { ENV, type GatewayEnv } from '../config/env.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { DEFAULT_SCOPES, type Principal, type Scope } from './scopes.js';

const KEY_PREFIX = 'ti_';
/** Keys are `ti_` + 43 base64url characters (32 random bytes). */
const KEY_SHAPE = /^ti_[A-Za-z0-9_-]{43}$/;
const CACHE_MAX_ENTRIES = 10_000;
/** How long a key that authenticated stays "known" (exempt from the per-address limit of unauthenticated requests). */
export const KNOWN_KEY_MS = 10 * 60_000;
const DEFAULT_UNKNOWN_KEY_CACHE_TTL_MS = 60_000;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export class ApiKeyAdminError extends Error {}

const NO_KEY = { key: '', hash: '' };

type KeyCacheSettings = Pick<GatewayEnv, 'API_KEY_CACHE_TTL_MS'> & Partial<Pick<GatewayEnv, 'UNKNOWN_KEY_CACHE_TTL_MS'>>;

/** A Map bounded to CACHE_MAX_ENTRIES that drops its oldest entries first. */
class BoundedMap<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    this.delete(key);
    if (this.size >= CACHE_MAX_ENTRIES) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}

/**
 * Issues, revokes and resolves API keys. A key found is cached for API_KEY_CACHE_TTL_MS: a
 * revoked key stops working on every replica within that time. A key not found (unknown or
 * revoked) is remembered for UNKNOWN_KEY_CACHE_TTL_MS (the negative cache), so repeating it costs
 * no database lookup; a malformed key never costs one. Each cache holds at most 10,000 keys
 * (by hash), oldest dropped first, so a flood of bad keys never evicts the good ones.
 */
@Injectable()
export class ApiKeysService {
  private readonly found = new BoundedMap<{ principal: Principal; expiresAt: number }>();
  private readonly missing = new BoundedMap<number>();
  /** Keys that authenticated within KNOWN_KEY_MS, by hash, with when that ends. */
  private readonly known = new BoundedMap<number>();

  constructor(
    private readonly keys: ApiKeysRepository,
    @Inject(ENV) private readonly env: KeyCacheSettings,
    @Inject(CLOCK) private readonly now: Clock = systemClock,
  ) {}

  /** True when `key` authenticated on this replica within the last KNOWN_KEY_MS (and was not refused since). */
  isKnown(key: string): boolean {
    if (!KEY_SHAPE.test(key)) return false;
    return (this.known.get(this.hashOf(key)) ?? 0) > this.now();
  }

  async authenticate(key: string): Promise<Principal | null> {
    if (!KEY_SHAPE.test(key)) return null;
    const hash = this.hashOf(key);
    this.last = NO_KEY; // the key itself is not kept past the request's guard
    const now = this.now();
    const cached = this.found.get(hash);
    if (cached && cached.expiresAt > now) return cached.principal;
    if ((this.missing.get(hash) ?? 0) > now) return null;
    const principal = await this.keys.findActiveByHash(hash);
    if (principal) {
      if (this.env.API_KEY_CACHE_TTL_MS > 0) this.found.set(hash, { principal, expiresAt: now + this.env.API_KEY_CACHE_TTL_MS });
      this.known.set(hash, now + KNOWN_KEY_MS);
    } else {
      this.found.delete(hash);
      this.known.delete(hash);
      const ttl = this.env.UNKNOWN_KEY_CACHE_TTL_MS ?? DEFAULT_UNKNOWN_KEY_CACHE_TTL_MS;
      if (ttl > 0) this.missing.set(hash, now + ttl);
    }
    return principal;
  }

  /** The key isKnown just hashed and its hash: the guard asks isKnown then authenticate of the same key, one SHA-256 for both. */
  private last = NO_KEY;

  private hashOf(key: string): string {
    if (this.last.key !== key) this.last = { key, hash: hashKey(key) };
    return this.last.hash;
  }

  /** Creates a key (and its tenant when needed); returns the key, which is never stored. */
  async create(options: {
    name: string;
    scopes?: readonly Scope[];
    tenant?: string;
    rateLimitPerSecond?: number | null;
  }): Promise<{ key: string; tenantId: string }> {
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

  /** Gives an active key its own rate (requests per second), or the default again (null). */
  async setRateLimit(key: string, rateLimitPerSecond: number | null): Promise<boolean> {
    return this.keys.setRateLimitByHash(hashKey(key), rateLimitPerSecond);
  }
}
