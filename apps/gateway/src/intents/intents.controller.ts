import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  BulkCancelRequestSchema,
  createIntentRequestSchema,
  createWalletIntentRequestSchema,
  type IntentKind,
  createIntentsBatchRequestSchema,
  IntentIdSchema,
  NATS_ROUTES,
  NoBodySchema,
  parseInput,
  SearchIntentsRequestSchema,
  type BulkCancelRequest,
  type BulkCancelResult,
  TenantSearchIntentsRequestSchema,
  type CreateIntentRequest,
  type CreateIntentsBatchRequest,
  type CreateWalletIntentRequest,
  type IntentRecord,
} from '@tradeinfra/contracts';
import type { Response } from 'express';
import { AuthGuard, type AuthenticatedRequest } from '../auth/auth.guard.js';
import { AllowDashboardToken, RequireScope } from '../auth/scopes.js';
import { checkIdempotencyKey, requestIdOf } from '../http/request-context.js';
import { ContractPipe } from '../http/zod.pipe.js';
import { ServiceClient } from '../nats/service-client.js';

/**
 * The public intent endpoints. Bodies are checked here with the contracts' schemas (so bad
 * input never leaves the gateway) and again by the intent service with its chain list.
 */
@Controller('v1')
@UseGuards(AuthGuard)
export class IntentsController {
  constructor(private readonly services: ServiceClient) {}

  @Post('intent')
  @RequireScope('intents:write')
  create(
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body(new ContractPipe(createIntentRequestSchema())) body: CreateIntentRequest,
  ): Promise<IntentRecord> {
    return this.createAs('bot', body, req, res, idempotencyKey);
  }

  /** A wallet intent: pre-signed by the wallet (EIP-712), executed through the chain's executor contract. */
  @Post('wallet/intent')
  @RequireScope('intents:write')
  createWalletIntent(
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body(new ContractPipe(createWalletIntentRequestSchema())) body: CreateWalletIntentRequest,
  ): Promise<IntentRecord> {
    return this.createAs('wallet', body, req, res, idempotencyKey);
  }

  private async createAs(
    kind: IntentKind,
    body: CreateIntentRequest | CreateWalletIntentRequest,
    req: AuthenticatedRequest,
    res: Response,
    idempotencyKey: string | undefined,
  ): Promise<IntentRecord> {
    checkIdempotencyKey(idempotencyKey);
    const reply = await this.services.forward(
      NATS_ROUTES.intentCreate,
      { tenantId: req.principal.tenantId, idempotencyKey: idempotencyKey ?? null, body, ...(kind === 'wallet' ? { kind } : {}) },
      requestIdOf(req),
    );
    res.status(201);
    if (reply.replayed) res.setHeader('idempotent-replayed', 'true');
    return reply.intent;
  }

  /**
   * Batch create: a JSON array of 1 to 100 intents, all stored or none (an invalid item is a
   * 400 naming it by index, `3.buyAmount`). Answers the records in request order. The
   * Idempotency-Key covers the whole batch.
   */
  @Post('intents')
  @RequireScope('intents:write')
  async createBatch(
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body(new ContractPipe(createIntentsBatchRequestSchema())) body: CreateIntentsBatchRequest,
  ): Promise<IntentRecord[]> {
    checkIdempotencyKey(idempotencyKey);
    const reply = await this.services.forward(
      NATS_ROUTES.intentCreateBatch,
      { tenantId: req.principal.tenantId, idempotencyKey: idempotencyKey ?? null, body },
      requestIdOf(req),
    );
    res.status(201);
    if (reply.replayed) res.setHeader('idempotent-replayed', 'true');
    return reply.intents;
  }

  /**
   * Bulk cancel, `{ids: [...]}` (1 to 500, each once): every pending intent of the caller's
   * tenant among them is cancelled, in one transaction. Answers one entry per id, in order.
   */
  @Delete('intents')
  @HttpCode(200)
  @RequireScope('intents:write')
  cancelBatch(@Req() req: AuthenticatedRequest, @Body(new ContractPipe(BulkCancelRequestSchema)) body: BulkCancelRequest): Promise<BulkCancelResult[]> {
    return this.bulkCancel(req, body);
  }

  /** The same as `DELETE /v1/intents`, for clients that cannot send a body with DELETE. */
  @Post('intents/cancel')
  @HttpCode(200)
  @RequireScope('intents:write')
  cancelBatchAlias(@Req() req: AuthenticatedRequest, @Body(new ContractPipe(BulkCancelRequestSchema)) body: BulkCancelRequest): Promise<BulkCancelResult[]> {
    return this.bulkCancel(req, body);
  }

  private async bulkCancel(req: AuthenticatedRequest, body: BulkCancelRequest): Promise<BulkCancelResult[]> {
    const reply = await this.services.forward(NATS_ROUTES.intentCancelBatch, { tenantId: req.principal.tenantId, body }, requestIdOf(req));
    return reply.results;
  }

  @Get('intent/:id')
  @RequireScope('intents:read')
  @AllowDashboardToken()
  get(@Req() req: AuthenticatedRequest, @Param('id', new ContractPipe(IntentIdSchema)) id: string): Promise<IntentRecord> {
    return this.services.forward(NATS_ROUTES.intentGet, { tenantId: req.principal.tenantId, id }, requestIdOf(req));
  }

  /** A customer dashboard (its token) may leave `addresses` out: every wallet of the tenant. */
  @Post('intents/search')
  @HttpCode(200)
  @RequireScope('intents:read')
  @AllowDashboardToken()
  async search(@Req() req: AuthenticatedRequest, @Res() res: Response): Promise<void> {
    const tenantWide = req.principal.dashboard !== undefined;
    const body = parseInput(tenantWide ? TenantSearchIntentsRequestSchema : SearchIntentsRequestSchema, req.body);
    const reply = await this.services.forward(
      NATS_ROUTES.intentSearch,
      { tenantId: req.principal.tenantId, body, ...(tenantWide ? { tenantWide } : {}) },
      requestIdOf(req),
    );
    if (reply.nextCursor) res.setHeader('x-next-cursor', reply.nextCursor);
    // The page is already JSON (rendered by the database): send it as it is.
    res.status(200).type('application/json').send(reply.intentsJson);
  }

  @Post('intent/:id/cancel')
  @HttpCode(200)
  @RequireScope('intents:write')
  cancel(
    @Req() req: AuthenticatedRequest,
    @Param('id', new ContractPipe(IntentIdSchema)) id: string,
    @Body(new ContractPipe(NoBodySchema)) _none: unknown,
  ): Promise<IntentRecord> {
    return this.services.forward(NATS_ROUTES.intentCancel, { tenantId: req.principal.tenantId, id }, requestIdOf(req));
  }
}
