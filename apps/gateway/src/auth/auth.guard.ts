import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ErrorName } from '@tradeinfra/contracts';
import { CLOCK, type Clock } from '@tradeinfra/service-kit';
import type { Request, Response } from 'express';
import { ENV, type GatewayEnv } from '../config/env.js';
import { GatewayError } from '../http/gateway-error.js';
import { DashboardTokens } from '../dashboard/dashboard-tokens.js';
import { ApiKeysService } from './api-keys.service.js';
import { addressBucket, RateLimiter, setRateLimitHeaders } from './rate-limiter.js';
import { DASHBOARD_ACCESS, KEY_IN_QUERY, REQUIRED_SCOPE, type DashboardAccess, type Principal, type Scope } from './scopes.js';

export type AuthenticatedRequest = Request & { principal: Principal };

/** `x-api-key: KEY`, `Authorization: Bearer KEY` or `Authorization: Token KEY` (the form Merkle's SDKs send). */
export function keyOf(req: Pick<Request, 'headers'>): string | null {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return header.trim();
  const scheme = /^(bearer|token)\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return scheme ? scheme[2]! : null;
}

/** `?key=KEY`, on the routes that allow it (AllowKeyInQuery). */
export function queryKeyOf(req: Pick<Request, 'query'>): string | null {
  const key = (req.query as Record<string, unknown> | undefined)?.key;
  return typeof key === 'string' && key.length > 0 ? key : null;
}

/**
 * A customer dashboard token: `Authorization: Dashboard TOKEN`, or `?token=TOKEN` on the routes
 * that allow it (the event stream: EventSource cannot send headers).
 */
export function dashboardTokenOf(req: Pick<Request, 'headers' | 'query'>, allowQuery: boolean): string | null {
  const scheme = /^dashboard\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (scheme) return scheme[1]!;
  const query = allowQuery ? (req.query as Record<string, unknown> | undefined)?.token : undefined;
  return typeof query === 'string' && query.length > 0 ? query : null;
}

/** What each kind of dashboard token may do (on the allow-listed routes only). */
const DASHBOARD_SCOPES: Record<'intents' | 'source', readonly Scope[]> = {
  intents: ['intents:read'],
  source: ['intents:read', 'payouts:read', 'payouts:write'],
};
const INVALID_DASHBOARD_CHALLENGE = 'Dashboard realm="tradeinfra", error="invalid_token"';

/** The challenge of a 401 for a key that was sent but is unknown or revoked (RFC 6750 §3.1). */
const INVALID_KEY_CHALLENGE = 'Bearer realm="tradeinfra", error="invalid_token", Token realm="tradeinfra"';

/**
 * The gateway's rate limits, one pair for the whole replica. Nest makes an AuthGuard per module
 * that uses it, so the buckets live here (provided once by AuthModule), not in the guard.
 */
@Injectable()
export class RateLimits {
  readonly perKey: RateLimiter;
  readonly perAddress: RateLimiter;

  constructor(@Inject(ENV) env: GatewayEnv, @Inject(CLOCK) now: Clock) {
    this.perKey = new RateLimiter(env.RATE_LIMIT_PER_SECOND, env.RATE_LIMIT_BURST, now);
    this.perAddress = new RateLimiter(env.UNAUTH_RATE_LIMIT_PER_SECOND, env.UNAUTH_RATE_LIMIT_BURST, now);
  }
}

/**
 * Every route with a required scope: per-address limit (unless the key is known) → key →
 * principal → per-key rate limit → scope. A flood of made-up keys is answered 429 before any key
 * lookup; a key known to be good skips the address bucket (docs/design/code-notes.md#auth-guard).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly limiter: RateLimiter;
  private readonly addressLimiter: RateLimiter;

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysService,
    private readonly dashboardTokens: DashboardTokens,
    limits: RateLimits,
  ) {
    this.limiter = limits.perKey;
    this.addressLimiter = limits.perAddress;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, [context.getHandler(), context.getClass()]);
    if (!scope) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<AuthenticatedRequest>();
    const res = http.getResponse<Response>();
    const access = this.reflector.getAllAndOverride<DashboardAccess | undefined>(DASHBOARD_ACCESS, [context.getHandler(), context.getClass()]);
    const dashboardToken = dashboardTokenOf(req, access?.query === true);
    if (dashboardToken !== null) {
      req.principal = this.dashboardPrincipal(req, res, scope, access, dashboardToken);
      return true;
    }
    const key = keyOf(req) ?? (this.reflector.get<boolean | undefined>(KEY_IN_QUERY, context.getHandler()) ? queryKeyOf(req) : null);
    if (key === null || !this.keys.isKnown(key)) this.takeAddressToken(req, res);
    if (!key) {
      throw new GatewayError(ErrorName.Unauthorized, 'Missing API key: send it as x-api-key: KEY, Authorization: Bearer KEY or Authorization: Token KEY');
    }
    const principal = await this.keys.authenticate(key);
    if (!principal) {
      throw new GatewayError(ErrorName.Unauthorized, 'Unknown or revoked API key', null, { 'www-authenticate': INVALID_KEY_CHALLENGE });
    }
    const decision = this.limiter.take(principal.keyId, principal.rateLimitPerSecond ?? undefined);
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      throw new GatewayError(ErrorName.RateLimited, `Rate limit exceeded for this API key; retry in ${decision.retryAfter} s`, null, {
        'retry-after': String(decision.retryAfter),
      });
    }
    if (!principal.scopes.includes(scope) && !principal.scopes.includes('admin')) {
      throw new GatewayError(ErrorName.Forbidden, `This API key lacks the scope ${scope}`, { requiredScope: scope });
    }
    req.principal = principal;
    return true;
  }

  private takeAddressToken(req: AuthenticatedRequest, res: Response): void {
    const decision = this.addressLimiter.take(addressBucket(req.ip ?? req.socket.remoteAddress ?? 'unknown'));
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      throw new GatewayError(ErrorName.RateLimited, `Too many requests without a valid API key from this address; retry in ${decision.retryAfter} s`, null, {
        'retry-after': String(decision.retryAfter),
      });
    }
  }

  /**
   * A signed dashboard token: checked (signature, expiry) without any lookup; a bad one takes
   * a token from the address's bucket as an unknown key does. A good one is accepted on the
   * allow-listed routes only, counts against its tenant's dashboard bucket, and grants its
   * tenant and its kind's scopes (a source token: that source's routes only).
   */
  private dashboardPrincipal(req: AuthenticatedRequest, res: Response, scope: Scope, access: DashboardAccess | undefined, token: string): Principal {
    const check = this.dashboardTokens.verify(token);
    if (!check.ok) {
      this.takeAddressToken(req, res);
      throw new GatewayError(
        ErrorName.Unauthorized,
        check.reason === 'expired' ? 'The dashboard link has expired: ask for a new one' : 'Invalid dashboard token',
        null,
        { 'www-authenticate': INVALID_DASHBOARD_CHALLENGE },
      );
    }
    const { claims } = check;
    if (!access) throw new GatewayError(ErrorName.Forbidden, 'A dashboard token is not accepted on this route: use an API key');
    const keyId = `dashboard:${claims.tenantId}:${claims.sourceId ?? ''}`;
    const decision = this.limiter.take(keyId);
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      throw new GatewayError(ErrorName.RateLimited, `Rate limit exceeded for this dashboard; retry in ${decision.retryAfter} s`, null, {
        'retry-after': String(decision.retryAfter),
      });
    }
    const scopes = DASHBOARD_SCOPES[claims.kind];
    if (!scopes.includes(scope)) throw new GatewayError(ErrorName.Forbidden, `This dashboard token lacks the scope ${scope}`, { requiredScope: scope });
    if (access.source) {
      const id = (req.params as Record<string, string | undefined>).id;
      if (claims.kind !== 'source' || id !== claims.sourceId) throw new GatewayError(ErrorName.NotFound, `Source ${id ?? ''} not found`);
    }
    return { keyId, tenantId: claims.tenantId, scopes, rateLimitPerSecond: null, dashboard: { kind: claims.kind, sourceId: claims.sourceId ?? null } };
  }
}
