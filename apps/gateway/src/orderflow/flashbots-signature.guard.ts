import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ErrorName } from '@tradeinfra/contracts';
import { CLOCK, verifyFlashbotsSignature, type Clock } from '@tradeinfra/service-kit';
import type { Request, Response } from 'express';
import { RateLimits } from '../auth/auth.guard.js';
import { addressBucket, RateLimiter, setRateLimitHeaders } from '../auth/rate-limiter.js';
import { ENV, type GatewayEnv } from '../config/env.js';
import { GatewayError } from '../http/gateway-error.js';

export type SearcherRequest = Request & { searcher: string };

/** Searchers' rate limits, per signing address, one for the replica (provided once by OrderflowModule). */
@Injectable()
export class SearcherLimits {
  readonly perSearcher: RateLimiter;

  constructor(@Inject(ENV) env: GatewayEnv, @Inject(CLOCK) now: Clock) {
    this.perSearcher = new RateLimiter(env.MEV_RATE_LIMIT_PER_SECOND, env.MEV_RATE_LIMIT_BURST, now);
  }
}

/**
 * `POST /v1/mev`: the request is the searcher's whose key signed its body
 * (`X-Flashbots-Signature: <address>:<personal_sign(keccak256(body))>`, as MEV-Share's client
 * sends it). A missing or wrong signature takes a token of the client address's bucket and is
 * answered 401; a good one counts against its address's own bucket (MEV_RATE_LIMIT_*).
 */
@Injectable()
export class FlashbotsSignatureGuard implements CanActivate {
  constructor(
    private readonly limits: SearcherLimits,
    private readonly rateLimits: RateLimits,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const req = http.getRequest<SearcherRequest>();
    const res = http.getResponse<Response>();
    const header = req.headers['x-flashbots-signature'];
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const searcher = typeof header === 'string' ? verifyFlashbotsSignature(header, body) : null;
    if (!searcher) {
      const decision = this.rateLimits.perAddress.take(addressBucket(req.ip ?? req.socket.remoteAddress ?? 'unknown'));
      setRateLimitHeaders(res, decision);
      if (!decision.allowed) {
        throw new GatewayError(ErrorName.RateLimited, `Too many unsigned requests from this address; retry in ${decision.retryAfter} s`, null, {
          'retry-after': String(decision.retryAfter),
        });
      }
      throw new GatewayError(
        ErrorName.Unauthorized,
        header === undefined
          ? 'Missing X-Flashbots-Signature: sign keccak256(body) with personal_sign and send <address>:<signature>'
          : 'Invalid X-Flashbots-Signature: it must be <address>:<personal_sign(keccak256(body))> by that address, over the exact body sent',
        null,
        { 'www-authenticate': 'X-Flashbots-Signature' },
      );
    }
    const decision = this.limits.perSearcher.take(`searcher:${searcher}`);
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      throw new GatewayError(ErrorName.RateLimited, `Rate limit exceeded for searcher ${searcher}; retry in ${decision.retryAfter} s`, null, {
        'retry-after': String(decision.retryAfter),
      });
    }
    req.searcher = searcher;
    return true;
  }
}
