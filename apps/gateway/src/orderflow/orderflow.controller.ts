import { Body, Controller, Get, Inject, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  ErrorName,
  JsonRpcBodySchema,
  MevStreamQuerySchema,
  NATS_ROUTES,
  orderflowHintSubject,
  RpcQuerySchema,
  type OrderflowMevMessage,
  type OrderflowReply,
  type OrderflowRpcMessage,
  type RpcQuery,
} from '@tradeinfra/contracts';
import type { Request, Response } from 'express';
import { AuthGuard, type AuthenticatedRequest } from '../auth/auth.guard.js';
import { addressBucket } from '../auth/rate-limiter.js';
import { AllowKeyInQuery, RequireScope } from '../auth/scopes.js';
import { ENV, type GatewayEnv } from '../config/env.js';
import { GatewayError } from '../http/gateway-error.js';
import { requestIdOf } from '../http/request-context.js';
import { ContractPipe } from '../http/zod.pipe.js';
import { ServiceClient } from '../nats/service-client.js';
import { FlashbotsSignatureGuard, type SearcherRequest } from './flashbots-signature.guard.js';
import { SourceOwners } from './source-owners.js';

const HEARTBEAT_MS = 15_000;
const DEFAULT_CHAIN_ID = 1;

/** Sends the orderflow service's JSON-RPC reply (exact JSON text) as it is. */
function sendReply(res: Response, reply: OrderflowReply): void {
  res.status(200).type('application/json').send(reply.json);
}

/**
 * Order flow: wallets' private transactions (`POST /v1/rpc`, an API key, a source of the key's
 * tenant), the public MEV-Share hint stream, and searchers' bundles (`POST /v1/mev`, signed).
 */
@Controller('v1')
export class OrderflowController {
  private readonly streams = new Map<string, number>();

  constructor(
    private readonly services: ServiceClient,
    private readonly owners: SourceOwners,
    @Inject(ENV) private readonly env: GatewayEnv,
  ) {}

  @Post('rpc')
  @UseGuards(AuthGuard)
  @RequireScope('rpc')
  @AllowKeyInQuery()
  async rpc(
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
    @Query(new ContractPipe(RpcQuerySchema)) query: RpcQuery,
    @Body(new ContractPipe(JsonRpcBodySchema)) body: unknown,
  ): Promise<void> {
    const { tenantId, keyId, scopes } = req.principal;
    await this.owners.check({ tenantId, keyId, admin: scopes.includes('admin') }, query.source, requestIdOf(req));
    const message: OrderflowRpcMessage = {
      tenantId,
      sourceId: query.source,
      chainId: query.chainId ?? DEFAULT_CHAIN_ID,
      useMempool: query.useMempool === 'true',
      body,
    };
    sendReply(res, await this.services.forward(NATS_ROUTES.orderflowRpc, message, requestIdOf(req), this.env.ORDERFLOW_TIMEOUT_MS));
  }

  @Post('mev')
  @UseGuards(FlashbotsSignatureGuard)
  async mev(@Req() req: SearcherRequest, @Res() res: Response, @Body(new ContractPipe(JsonRpcBodySchema)) body: unknown): Promise<void> {
    const message: OrderflowMevMessage = { searcher: req.searcher, body };
    sendReply(res, await this.services.forward(NATS_ROUTES.orderflowMev, message, requestIdOf(req), this.env.ORDERFLOW_TIMEOUT_MS));
  }

  /**
   * Server-sent events, MEV-Share's stream: one unnamed event (`data:` the hint JSON) per pending
   * private transaction of the chain, from now on; `:ping` every 15 s. Public (EventSource sends
   * no headers); at most MEV_STREAMS_PER_ADDRESS open per client address.
   */
  @Get('mev/stream')
  stream(@Req() req: Request, @Res() res: Response, @Query(new ContractPipe(MevStreamQuerySchema)) query: { chainId?: number }): void {
    const address = addressBucket(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    const open = this.streams.get(address) ?? 0;
    if (open >= this.env.MEV_STREAMS_PER_ADDRESS) {
      throw new GatewayError(ErrorName.RateLimited, `At most ${this.env.MEV_STREAMS_PER_ADDRESS} hint streams per client address are open at once`, null, {
        'retry-after': '5',
      });
    }
    const subscription = this.services.subscribe(orderflowHintSubject(query.chainId ?? DEFAULT_CHAIN_ID));
    this.streams.set(address, open + 1);
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache, no-transform');
    res.setHeader('connection', 'keep-alive');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    res.write(':ping\n\n');
    const heartbeat = setInterval(() => res.write(':ping\n\n'), HEARTBEAT_MS);
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      clearInterval(heartbeat);
      subscription.unsubscribe();
      const left = (this.streams.get(address) ?? 1) - 1;
      if (left > 0) this.streams.set(address, left);
      else this.streams.delete(address);
    };
    res.on('close', stop);
    if (res.destroyed || req.socket.destroyed) stop();
    void (async () => {
      for await (const msg of subscription) res.write(`data: ${msg.string()}\n\n`);
      res.end();
    })();
  }
}
