import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ErrorName } from '@tradeinfra/contracts';
import type { Request } from 'express';
import { ENV, type GatewayEnv } from '../config/env.js';
import { GatewayError } from '../http/gateway-error.js';
import { ApiKeysService } from './api-keys.service.js';
import { RateLimiter } from './rate-limiter.js';
import { REQUIRED_SCOPE, type Principal, type Scope } from './scopes.js';

export type AuthenticatedRequest = Request & { principal: Principal };

/** `x-api-key: KEY`, `Authorization: Bearer KEY` or `Authorization: Token KEY` (the form Merkle's SDKs send). */
export function keyOf(req: Pick<Request, 'headers'>): string | null {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return header.trim();
  const scheme = /^(bearer|token)\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return scheme ? scheme[2]! : null;
}

/** Every route with a required scope: key → principal → rate limit → scope. */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly limiter: RateLimiter;

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysService,
    @Inject(ENV) env: GatewayEnv,
  ) {
    this.limiter = new RateLimiter(env.RATE_LIMIT_PER_SECOND, env.RATE_LIMIT_BURST);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, [context.getHandler(), context.getClass()]);
    if (!scope) return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = keyOf(req);
    if (!key) {
      throw new GatewayError(ErrorName.Unauthorized, 'Missing API key: send it as x-api-key: KEY, Authorization: Bearer KEY or Authorization: Token KEY');
    }
    const principal = await this.keys.authenticate(key);
    if (!principal) throw new GatewayError(ErrorName.Unauthorized, 'Unknown or revoked API key');
    const wait = this.limiter.take(principal.keyId, principal.rateLimitPerSecond ?? undefined);
    if (wait > 0) {
      throw new GatewayError(ErrorName.RateLimited, `Rate limit exceeded for this API key; retry in ${wait} s`, null, {
        'retry-after': String(wait),
      });
    }
    if (!principal.scopes.includes(scope) && !principal.scopes.includes('admin')) {
      throw new GatewayError(ErrorName.Forbidden, `This API key lacks the scope ${scope}`, { requiredScope: scope });
    }
    req.principal = principal;
    return true;
  }
}
