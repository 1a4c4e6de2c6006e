import { Body, Controller, Get, Headers, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  createIntentRequestSchema,
  ErrorName,
  INTENT_CANCEL,
  INTENT_CREATE,
  INTENT_GET,
  INTENT_SEARCH,
  IntentIdSchema,
  NoBodySchema,
  SearchIntentsRequestSchema,
  type CreateIntentReply,
  type IntentRecord,
  type SearchIntentsReply,
} from '@tradeinfra/contracts';
import type { Response } from 'express';
import { AuthGuard, type AuthenticatedRequest } from '../auth/auth.guard.js';
import { RequireScope } from '../auth/scopes.js';
import { GatewayError } from '../http/gateway-error.js';
import { requestIdOf } from '../http/request-context.js';
import { ContractPipe } from '../http/zod.pipe.js';
import { ServiceClient } from '../nats/service-client.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

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
  async create(
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body(new ContractPipe(createIntentRequestSchema())) _shape: unknown,
  ): Promise<IntentRecord> {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new GatewayError(ErrorName.Validation, 'Idempotency-Key must be 1 to 255 printable ASCII characters', [
        { path: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
      ]);
    }
    const reply = await this.services.request<CreateIntentReply>(
      INTENT_CREATE,
      { tenantId: req.principal.tenantId, idempotencyKey: idempotencyKey ?? null, body: req.body },
      requestIdOf(req),
    );
    res.status(201);
    if (reply.replayed) res.setHeader('idempotent-replayed', 'true');
    return reply.intent;
  }

  @Get('intent/:id')
  @RequireScope('intents:read')
  get(@Req() req: AuthenticatedRequest, @Param('id', new ContractPipe(IntentIdSchema)) id: string): Promise<IntentRecord> {
    return this.services.request<IntentRecord>(INTENT_GET, { tenantId: req.principal.tenantId, id }, requestIdOf(req));
  }

  @Post('intents/search')
  @HttpCode(200)
  @RequireScope('intents:read')
  async search(
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
    @Body(new ContractPipe(SearchIntentsRequestSchema)) _shape: unknown,
  ): Promise<void> {
    const reply = await this.services.request<SearchIntentsReply>(
      INTENT_SEARCH,
      { tenantId: req.principal.tenantId, body: req.body },
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
    return this.services.request<IntentRecord>(INTENT_CANCEL, { tenantId: req.principal.tenantId, id }, requestIdOf(req));
  }
}
