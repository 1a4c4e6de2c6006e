import { Body, Controller, Headers, Post, Req, Res, UseGuards } from '@nestjs/common';
import { createExitRequestSchema, NATS_ROUTES, type CreateExitRequest, type IntentRecord } from '@tradeinfra/contracts';
import type { Response } from 'express';
import { AuthGuard, type AuthenticatedRequest } from '../auth/auth.guard.js';
import { RequireScope } from '../auth/scopes.js';
import { checkIdempotencyKey, requestIdOf } from '../http/request-context.js';
import { ContractPipe } from '../http/zod.pipe.js';
import { ServiceClient } from '../nats/service-client.js';

/**
 * `POST /v1/exit`: an exit intent (a sell on a price trigger or ahead of a rug). Checked here
 * with the contracts' schema, again by the intent service with its chains. Read, searched and
 * cancelled through the intent routes.
 */
@Controller('v1')
@UseGuards(AuthGuard)
export class ExitsController {
  constructor(private readonly services: ServiceClient) {}

  @Post('exit')
  @RequireScope('intents:write')
  async create(
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body(new ContractPipe(createExitRequestSchema())) body: CreateExitRequest,
  ): Promise<IntentRecord> {
    checkIdempotencyKey(idempotencyKey);
    const reply = await this.services.forward(
      NATS_ROUTES.exitCreate,
      { tenantId: req.principal.tenantId, idempotencyKey: idempotencyKey ?? null, body },
      requestIdOf(req),
    );
    res.status(201);
    if (reply.replayed) res.setHeader('idempotent-replayed', 'true');
    return reply.intent;
  }
}
