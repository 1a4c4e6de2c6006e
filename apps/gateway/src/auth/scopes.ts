import { SetMetadata } from '@nestjs/common';

export const SCOPES = ['intents:read', 'intents:write', 'payouts:read', 'payouts:write', 'simulate', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
/** Scopes a key gets when none are named: everything but `admin`. */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'admin');

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export const REQUIRED_SCOPE = 'requiredScope';
/** The scope a route needs; `admin` keys pass every scope check. */
export const RequireScope = (scope: Scope) => SetMetadata(REQUIRED_SCOPE, scope);

/** What a request is allowed to do, resolved from its API key. */
export interface Principal {
  keyId: string;
  tenantId: string;
  scopes: readonly Scope[];
  rateLimitPerSecond: number | null;
}
