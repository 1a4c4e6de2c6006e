import { Body, Controller, Get, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  ErrorName,
  ListEntriesQuerySchema,
  MevCaptureEventSchema,
  NATS_ROUTES,
  PayoutTransitionSchema,
  RegisterSourceSchema,
  RequestPayoutSchema,
  sourceId,
  txHash,
  uuid,
  type ListEntriesQuery,
  type MevCaptureEvent,
  type PayoutTransition,
  type PayoutViewer,
  type RawJsonReply,
  type RegisteredSource,
  type RequestPayout,
} from '@tradeinfra/contracts';
import type { Response } from 'express';
import { ApiKeysRepository } from '../auth/api-keys.repository.js';
import { AuthGuard, type AuthenticatedRequest } from '../auth/auth.guard.js';
import { AllowDashboardToken, RequireScope } from '../auth/scopes.js';
import { GatewayError } from '../http/gateway-error.js';
import { requestIdOf } from '../http/request-context.js';
import { ContractPipe } from '../http/zod.pipe.js';
import { ServiceClient } from '../nats/service-client.js';

function viewerOf(req: AuthenticatedRequest): PayoutViewer {
  return { tenantId: req.principal.tenantId, admin: req.principal.scopes.includes('admin'), keyId: req.principal.keyId };
}

/** Sends JSON the payout service's database rendered (exact amounts), untouched. */
function sendJson(res: Response, status: number, reply: RawJsonReply): void {
  if (reply.nextCursor) res.setHeader('x-next-cursor', reply.nextCursor);
  res.status(status).type('application/json').send(reply.json);
}

/**
 * The ledger: entries by transaction and by filters, a source's cashback, payout requests and
 * their settlement. A tenant sees its registered sources only; `admin` sees everything.
 */
@Controller('v1')
@UseGuards(AuthGuard)
export class PayoutsController {
  constructor(
    private readonly services: ServiceClient,
    private readonly keys: ApiKeysRepository,
  ) {}

  @Get('payouts/tx/:hash')
  @RequireScope('payouts:read')
  async byTx(@Req() req: AuthenticatedRequest, @Res() res: Response, @Param('hash', new ContractPipe(txHash())) hash: string): Promise<void> {
    sendJson(res, 200, await this.services.forward(NATS_ROUTES.payoutEntriesByTx, { viewer: viewerOf(req), body: { hash } }, requestIdOf(req)));
  }

  @Get('payouts')
  @RequireScope('payouts:read')
  async list(@Req() req: AuthenticatedRequest, @Res() res: Response, @Query(new ContractPipe(ListEntriesQuerySchema)) query: ListEntriesQuery): Promise<void> {
    sendJson(res, 200, await this.services.forward(NATS_ROUTES.payoutEntriesList, { viewer: viewerOf(req), body: query }, requestIdOf(req)));
  }

  /** Operators record an entry by hand: the body is a MEV-capture event (its id makes it idempotent). */
  @Post('payouts/entries')
  @RequireScope('admin')
  async record(@Req() req: AuthenticatedRequest, @Res() res: Response, @Body(new ContractPipe(MevCaptureEventSchema)) event: MevCaptureEvent): Promise<void> {
    const reply = await this.services.forward(NATS_ROUTES.payoutEntryRecord, { viewer: viewerOf(req), body: event }, requestIdOf(req));
    sendJson(res, reply.created ? 201 : 200, reply);
  }

  @Get('cashback/source/:id')
  @RequireScope('payouts:read')
  @AllowDashboardToken({ source: true })
  async cashback(@Req() req: AuthenticatedRequest, @Res() res: Response, @Param('id', new ContractPipe(sourceId())) id: string): Promise<void> {
    sendJson(res, 200, await this.services.forward(NATS_ROUTES.payoutSourceCashback, { viewer: viewerOf(req), id }, requestIdOf(req)));
  }

  /** The source's latest 100 payouts, newest first. */
  @Get('cashback/source/:id/payouts')
  @RequireScope('payouts:read')
  @AllowDashboardToken({ source: true })
  async sourcePayouts(@Req() req: AuthenticatedRequest, @Res() res: Response, @Param('id', new ContractPipe(sourceId())) id: string): Promise<void> {
    sendJson(res, 200, await this.services.forward(NATS_ROUTES.payoutSourcePayouts, { viewer: viewerOf(req), id }, requestIdOf(req)));
  }

  @Post('cashback/source/:id/payout')
  @RequireScope('payouts:write')
  @AllowDashboardToken({ source: true })
  async requestPayout(
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
    @Param('id', new ContractPipe(sourceId())) id: string,
    @Body(new ContractPipe(RequestPayoutSchema)) body: RequestPayout,
  ): Promise<void> {
    sendJson(res, 201, await this.services.forward(NATS_ROUTES.payoutRequest, { viewer: viewerOf(req), id, body }, requestIdOf(req)));
  }

  @Get('cashback/payout/:id')
  @RequireScope('payouts:read')
  async payout(@Req() req: AuthenticatedRequest, @Res() res: Response, @Param('id', new ContractPipe(uuid('a payout id'))) id: string): Promise<void> {
    sendJson(res, 200, await this.services.forward(NATS_ROUTES.payoutGet, { viewer: viewerOf(req), id }, requestIdOf(req)));
  }

  @Post('cashback/payout/:id/status')
  @RequireScope('admin')
  async transition(
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
    @Param('id', new ContractPipe(uuid('a payout id'))) id: string,
    @Body(new ContractPipe(PayoutTransitionSchema)) body: PayoutTransition,
  ): Promise<void> {
    sendJson(res, 200, await this.services.forward(NATS_ROUTES.payoutTransition, { viewer: viewerOf(req), id, body }, requestIdOf(req)));
  }

  /** Operators register a source to a tenant (by its name). */
  @Post('sources')
  @RequireScope('admin')
  async registerSource(
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
    @Body(new ContractPipe(RegisterSourceSchema)) body: { id: string; tenant: string },
  ): Promise<void> {
    const tenantId = await this.keys.findTenantByName(body.tenant);
    if (!tenantId) throw new GatewayError(ErrorName.NotFound, `Tenant ${body.tenant} not found`, [{ path: 'tenant', message: 'no such tenant' }]);
    const source = await this.services.forward(NATS_ROUTES.payoutSourceRegister, { id: body.id, tenantId }, requestIdOf(req));
    const registered: RegisteredSource = { id: source.id, tenant: body.tenant };
    res.status(201).json(registered);
  }
}
