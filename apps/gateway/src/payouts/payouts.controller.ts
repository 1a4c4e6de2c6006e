import { Body, Controller, Get, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  ErrorName,
  ListEntriesQuerySchema,
  MevCaptureEventSchema,
  PAYOUT_ENTRIES_BY_TX,
  PAYOUT_ENTRIES_LIST,
  PAYOUT_ENTRY_RECORD,
  PAYOUT_GET,
  PAYOUT_REQUEST,
  PAYOUT_SOURCE_CASHBACK,
  PAYOUT_SOURCE_PAYOUTS,
  PAYOUT_SOURCE_REGISTER,
  PAYOUT_TRANSITION,
  PayoutTransitionSchema,
  RegisterSourceSchema,
  RequestPayoutSchema,
  sourceId,
  txHash,
  uuid,
  type PayoutViewer,
  type RawJsonReply,
  type RegisteredSource,
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

  private ask<T = RawJsonReply>(req: AuthenticatedRequest, subject: string, data: object): Promise<T> {
    return this.services.request<T>(subject, { viewer: viewerOf(req), ...data }, requestIdOf(req));
  }

  @Get('payouts/tx/:hash')
  @RequireScope('payouts:read')
  async byTx(@Req() req: AuthenticatedRequest, @Res() res: Response, @Param('hash', new ContractPipe(txHash())) hash: string): Promise<void> {
    sendJson(res, 200, await this.ask(req, PAYOUT_ENTRIES_BY_TX, { body: { hash } }));
  }

  @Get('payouts')
  @RequireScope('payouts:read')
  async list(@Req() req: AuthenticatedRequest, @Res() res: Response, @Query(new ContractPipe(ListEntriesQuerySchema)) _q: unknown): Promise<void> {
    sendJson(res, 200, await this.ask(req, PAYOUT_ENTRIES_LIST, { body: req.query }));
  }

  /** Operators record an entry by hand: the body is a MEV-capture event (its id makes it idempotent). */
  @Post('payouts/entries')
  @RequireScope('admin')
  async record(@Req() req: AuthenticatedRequest, @Res() res: Response, @Body(new ContractPipe(MevCaptureEventSchema)) _e: unknown): Promise<void> {
    const reply = await this.ask<{ json: string; created: boolean }>(req, PAYOUT_ENTRY_RECORD, { body: req.body });
    sendJson(res, reply.created ? 201 : 200, reply);
  }

  @Get('cashback/source/:id')
  @RequireScope('payouts:read')
  @AllowDashboardToken({ source: true })
  async cashback(@Req() req: AuthenticatedRequest, @Res() res: Response, @Param('id', new ContractPipe(sourceId())) id: string): Promise<void> {
    sendJson(res, 200, await this.ask(req, PAYOUT_SOURCE_CASHBACK, { id }));
  }

  /** The source's latest 100 payouts, newest first. */
  @Get('cashback/source/:id/payouts')
  @RequireScope('payouts:read')
  @AllowDashboardToken({ source: true })
  async sourcePayouts(@Req() req: AuthenticatedRequest, @Res() res: Response, @Param('id', new ContractPipe(sourceId())) id: string): Promise<void> {
    sendJson(res, 200, await this.ask(req, PAYOUT_SOURCE_PAYOUTS, { id }));
  }

  @Post('cashback/source/:id/payout')
  @RequireScope('payouts:write')
  @AllowDashboardToken({ source: true })
  async requestPayout(
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
    @Param('id', new ContractPipe(sourceId())) id: string,
    @Body(new ContractPipe(RequestPayoutSchema)) _b: unknown,
  ): Promise<void> {
    sendJson(res, 201, await this.ask(req, PAYOUT_REQUEST, { id, body: req.body }));
  }

  @Get('cashback/payout/:id')
  @RequireScope('payouts:read')
  async payout(@Req() req: AuthenticatedRequest, @Res() res: Response, @Param('id', new ContractPipe(uuid('a payout id'))) id: string): Promise<void> {
    sendJson(res, 200, await this.ask(req, PAYOUT_GET, { id }));
  }

  @Post('cashback/payout/:id/status')
  @RequireScope('admin')
  async transition(
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
    @Param('id', new ContractPipe(uuid('a payout id'))) id: string,
    @Body(new ContractPipe(PayoutTransitionSchema)) _b: unknown,
  ): Promise<void> {
    sendJson(res, 200, await this.ask(req, PAYOUT_TRANSITION, { id, body: req.body }));
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
    const source = await this.services.request<{ id: string; tenantId: string }>(PAYOUT_SOURCE_REGISTER, { id: body.id, tenantId }, requestIdOf(req));
    const registered: RegisteredSource = { id: source.id, tenant: body.tenant };
    res.status(201).json(registered);
  }
}
