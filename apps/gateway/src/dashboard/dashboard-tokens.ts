import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '@tradeinfra/service-kit';
import { ENV, type GatewayEnv } from '../config/env.js';
import { signDashboardToken, verifyDashboardToken, type DashboardClaims, type TokenCheck } from './dashboard-token.js';

/**
 * The key used when DASHBOARD_TOKEN_SECRET is not set (development): public, so anyone can forge
 * a token with it. The gateway warns at start.
 */
export const DEVELOPMENT_DASHBOARD_TOKEN_SECRET = createHash('sha256')
  .update('tradeinfra development dashboard key (public; set DASHBOARD_TOKEN_SECRET)')
  .digest('hex');

/** Signs and checks customer dashboard tokens, and builds the URLs that carry them. */
@Injectable()
export class DashboardTokens {
  private readonly secret: string;
  readonly ttlSeconds: number;
  readonly baseUrl: string;

  constructor(
    @Inject(ENV) env: GatewayEnv,
    @Inject(CLOCK) private readonly now: Clock,
  ) {
    this.secret = env.DASHBOARD_TOKEN_SECRET ?? DEVELOPMENT_DASHBOARD_TOKEN_SECRET;
    if (!env.DASHBOARD_TOKEN_SECRET) {
      new Logger('Dashboard').warn(
        'DASHBOARD_TOKEN_SECRET is not set: dashboard tokens are signed with the public development key; set it outside development',
      );
    }
    this.ttlSeconds = env.DASHBOARD_TOKEN_TTL_SECONDS;
    const host = env.HOST === '0.0.0.0' || env.HOST === '::' ? 'localhost' : env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST;
    this.baseUrl = env.PUBLIC_BASE_URL ?? `http://${host}:${env.PORT}`;
  }

  /** A URL of the dashboard page for these claims, valid for DASHBOARD_TOKEN_TTL_SECONDS. */
  url(claims: Omit<DashboardClaims, 'exp'>, port?: number, nowSeconds = Math.floor(this.now() / 1000)): { url: string; expiresAt: string } {
    const exp = nowSeconds + this.ttlSeconds;
    const token = signDashboardToken({ ...claims, exp }, this.secret);
    // With PORT=0 the port is only known once listening.
    const base = port !== undefined ? this.baseUrl.replace(/:0$/, `:${port}`) : this.baseUrl;
    return { url: `${base}/dashboard?token=${token}`, expiresAt: new Date(exp * 1000).toISOString() };
  }

  verify(token: string): TokenCheck {
    return verifyDashboardToken(token, this.secret, Math.floor(this.now() / 1000));
  }
}
