import { Body, Controller, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ErrorName,
  INTENT_EVENTS_SUBJECTS,
  MAX_NATS_JSON_DEPTH,
  NATS_ROUTES,
  NoBodySchema,
  parsePlainJson,
  type IntentEvent,
  type NotificationSecret,
} from '@tradeinfra/contracts';
import type { Response } from 'express';
import { AuthGuard, type AuthenticatedRequest } from '../auth/auth.guard.js';
import { AllowDashboardToken, RequireScope } from '../auth/scopes.js';
import { GatewayError } from '../http/gateway-error.js';
import { requestIdOf } from '../http/request-context.js';
import { ContractPipe } from '../http/zod.pipe.js';
import { ServiceClient } from '../nats/service-client.js';

const HEARTBEAT_MS = 15_000;
/** Open event streams one API key may hold at once. */
export const MAX_STREAMS_PER_KEY = 5;

/** Live intent status changes for dashboards, and the key that verifies webhook notifications. */
@Controller('v1/intents')
@UseGuards(AuthGuard)
export class IntentEventsController {
  private readonly open = new Map<string, number>();

  constructor(private readonly services: ServiceClient) {}

  /**
   * Server-sent events: every status change of the tenant's intents from now on (`event:` the
   * type, `id:` the event id, `data:` the event JSON). A comment every 15 s keeps proxies open.
   * Live only: a dashboard that reconnects reloads state with search, then listens again.
   */
  @Get('events')
  @RequireScope('intents:read')
  @AllowDashboardToken({ query: true })
  events(@Req() req: AuthenticatedRequest, @Res() res: Response): void {
    const { tenantId, keyId } = req.principal;
    const streams = this.open.get(keyId) ?? 0;
    if (streams >= MAX_STREAMS_PER_KEY) {
      throw new GatewayError(ErrorName.RateLimited, `At most ${MAX_STREAMS_PER_KEY} event streams per API key are open at once`, null, { 'retry-after': '5' });
    }
    const subscription = this.services.subscribe(INTENT_EVENTS_SUBJECTS);
    this.open.set(keyId, streams + 1);
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache, no-transform');
    res.setHeader('connection', 'keep-alive');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    res.write(': connected\n\n');
    const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      clearInterval(heartbeat);
      subscription.unsubscribe();
      const left = (this.open.get(keyId) ?? 1) - 1;
      if (left > 0) this.open.set(keyId, left);
      else this.open.delete(keyId);
    };
    // The response's 'close' (the connection ended): the request's fires as soon as its body has
    // been read, which for a GET sent with a body is before the stream even starts.
    res.on('close', stop);
    if (res.destroyed || req.socket.destroyed) stop(); // hung up already
    void (async () => {
      for await (const msg of subscription) {
        let event: IntentEvent;
        try {
          event = parsePlainJson(msg.string(), MAX_NATS_JSON_DEPTH) as IntentEvent;
        } catch {
          continue;
        }
        if (event.tenantId !== tenantId) continue;
        res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      }
      res.end();
    })();
  }

  /**
   * The secret this tenant's webhooks verify `x-notification-signature` (and signing requests'
   * `x-signing-signature`) with. It lets its holder forge our signatures, hence `intents:write`
   * and never cached.
   */
  @Get('notifications/secret')
  @RequireScope('intents:write')
  async secret(@Req() req: AuthenticatedRequest, @Res({ passthrough: true }) res: Response): Promise<NotificationSecret> {
    res.setHeader('cache-control', 'no-store');
    return this.services.forward(NATS_ROUTES.intentNotificationSecret, { tenantId: req.principal.tenantId }, requestIdOf(req));
  }

  /** Replaces the tenant's signing secret with a new one (the old one stops signing at once); answers the new one. */
  @Post('notifications/secret/rotate')
  @HttpCode(200)
  @RequireScope('intents:write')
  async rotate(
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
    @Body(new ContractPipe(NoBodySchema)) _none: unknown,
  ): Promise<NotificationSecret> {
    res.setHeader('cache-control', 'no-store');
    return this.services.forward(NATS_ROUTES.intentNotificationSecretRotate, { tenantId: req.principal.tenantId }, requestIdOf(req));
  }
}
