import { SetMetadata } from '@nestjs/common';

export const SCOPES = ['intents:read', 'intents:write', 'payouts:read', 'payouts:write', 'simulate', 'rpc', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
/** Scopes a key gets when none are named: everything but `admin`. */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'admin');

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export const REQUIRED_SCOPE = 'requiredScope';
/** The scope a route needs; `admin` keys pass every scope check. */
export const RequireScope = (scope: Scope) => SetMetadata(REQUIRED_SCOPE, scope);

/** What a request is allowed to do, resolved from its API key (or a dashboard token). */
export interface Principal {
  keyId: string;
  tenantId: string;
  scopes: readonly Scope[];
  rateLimitPerSecond: number | null;
  /** Set when a signed dashboard token (not an API key) authenticated the request. */
  dashboard?: { kind: 'intents' | 'source'; sourceId: string | null };
}

export const KEY_IN_QUERY = 'keyInQuery';
/**
 * The key may also come as `?key=` (routes a wallet calls through an RPC URL, which cannot carry
 * headers); a header still wins. Give such a URL a key with the `rpc` scope only.
 */
export const AllowKeyInQuery = () => SetMetadata(KEY_IN_QUERY, true);

export const DASHBOARD_ACCESS = 'dashboardAccess';
/**
 * The routes a customer dashboard token may call (the allow-list: no other route accepts one).
 * `source`: only with a source token, and only for the source named by the route's `:id`.
 * `query`: the token may come as `?token=` (EventSource cannot send headers); elsewhere only as
 * `Authorization: Dashboard TOKEN`.
 */
export interface DashboardAccess {
  source?: boolean;
  query?: boolean;
}
export const AllowDashboardToken = (access: DashboardAccess = {}) => SetMetadata(DASHBOARD_ACCESS, access);
