import { Controller, Get, Param, Req, Res, UseGuards } from '@nestjs/common';
import { NATS_ROUTES, sourceId, type DashboardUrl } from '@tradeinfra/contracts';
import type { Response } from 'express';
import { AuthGuard, type AuthenticatedRequest } from '../auth/auth.guard.js';
import { RequireScope } from '../auth/scopes.js';
import { requestIdOf } from '../http/request-context.js';
import { ContractPipe } from '../http/zod.pipe.js';
import { ServiceClient } from '../nats/service-client.js';
import { DashboardTokens } from './dashboard-tokens.js';

/**
 * Signed customer dashboard URLs (Merkle's `GET /v1/source/:id/dashboard-url`): the page they
 * open is served by this gateway and calls the API with the token in the URL, never a key.
 */
@Controller('v1')
@UseGuards(AuthGuard)
export class DashboardController {
  constructor(
    private readonly tokens: DashboardTokens,
    private readonly services: ServiceClient,
  ) {}

  /** The tenant's intents: a token granting `intents:read` (list, search, live events). */
  @Get('dashboard-url')
  @RequireScope('intents:read')
  intents(@Req() req: AuthenticatedRequest, @Res({ passthrough: true }) res: Response): DashboardUrl {
    res.setHeader('cache-control', 'no-store');
    return this.tokens.url({ tenantId: req.principal.tenantId, kind: 'intents' }, req.socket.localPort);
  }

  /** One source of the tenant (else 404): its balances, payouts and payout requests, and the tenant's intents. */
  @Get('source/:id/dashboard-url')
  @RequireScope('payouts:read')
  async source(
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
    @Param('id', new ContractPipe(sourceId())) id: string,
  ): Promise<DashboardUrl> {
    // The payout service answers 404 for a source that is not this tenant's.
    await this.services.forward(
      NATS_ROUTES.payoutSourcePayouts,
      { viewer: { tenantId: req.principal.tenantId, admin: false, keyId: req.principal.keyId }, id },
      requestIdOf(req),
    );
    res.setHeader('cache-control', 'no-store');
    return this.tokens.url({ tenantId: req.principal.tenantId, kind: 'source', sourceId: id }, req.socket.localPort);
  }
}
