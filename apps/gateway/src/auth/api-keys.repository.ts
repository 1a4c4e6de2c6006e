import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Principal, Scope } from './scopes.js';

/** The only class that touches the gateway's tenant and key tables. */
@Injectable()
export class ApiKeysRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async findActiveByHash(keyHash: string): Promise<Principal | null> {
    const rows: { id: string; tenant_id: string; scopes: Scope[]; rate_limit_per_second: number | null }[] = await this.db.query(
      `SELECT id, tenant_id, scopes, rate_limit_per_second FROM gateway.api_keys
         WHERE key_hash = $1 AND revoked_at IS NULL`,
      [keyHash],
    );
    const row = rows[0];
    return row ? { keyId: row.id, tenantId: row.tenant_id, scopes: row.scopes, rateLimitPerSecond: row.rate_limit_per_second } : null;
  }

  async findTenantByName(name: string): Promise<string | null> {
    const rows: { id: string }[] = await this.db.query('SELECT id FROM gateway.tenants WHERE name = $1', [name]);
    return rows[0]?.id ?? null;
  }

  /** Creates the tenant; null if the name is taken. */
  async insertTenant(id: string, name: string): Promise<string | null> {
    const rows: { id: string }[] = await this.db.query('INSERT INTO gateway.tenants (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING id', [
      id,
      name,
    ]);
    return rows[0]?.id ?? null;
  }

  async insertKey(key: {
    id: string;
    tenantId: string;
    name: string;
    prefix: string;
    keyHash: string;
    scopes: readonly Scope[];
    rateLimitPerSecond: number | null;
  }): Promise<void> {
    await this.db.query(
      `INSERT INTO gateway.api_keys (id, tenant_id, name, prefix, key_hash, scopes, rate_limit_per_second)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [key.id, key.tenantId, key.name, key.prefix, key.keyHash, key.scopes, key.rateLimitPerSecond],
    );
  }

  /** Marks the key revoked; false when no active key has that hash. */
  async revokeByHash(keyHash: string): Promise<boolean> {
    const [, count] = await this.db.query('UPDATE gateway.api_keys SET revoked_at = now() WHERE key_hash = $1 AND revoked_at IS NULL', [keyHash]);
    return count > 0;
  }

  /** Sets an active key's own rate (null: back to the replica-wide default); false when no active key has that hash. */
  async setRateLimitByHash(keyHash: string, rateLimitPerSecond: number | null): Promise<boolean> {
    const [, count] = await this.db.query('UPDATE gateway.api_keys SET rate_limit_per_second = $2 WHERE key_hash = $1 AND revoked_at IS NULL', [
      keyHash,
      rateLimitPerSecond,
    ]);
    return count > 0;
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}
