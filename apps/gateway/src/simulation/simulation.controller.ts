import { Body, Controller, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import { NATS_ROUTES, SimulateRequestSchema, type SimulateRequest, type SimulationResult } from '@tradeinfra/contracts';
import { AuthGuard, type AuthenticatedRequest } from '../auth/auth.guard.js';
import { RequireScope } from '../auth/scopes.js';
import { ENV, type GatewayEnv } from '../config/env.js';
import { requestIdOf } from '../http/request-context.js';
import { ContractPipe } from '../http/zod.pipe.js';
import { ServiceClient } from '../nats/service-client.js';

@Controller('v1')
@UseGuards(AuthGuard)
export class SimulationController {
  constructor(
    private readonly services: ServiceClient,
    @Inject(ENV) private readonly env: GatewayEnv,
  ) {}

  /** Checked here with the contracts' schema; the simulation service checks the forwarded value again. */
  @Post('simulate')
  @HttpCode(200)
  @RequireScope('simulate')
  simulate(@Req() req: AuthenticatedRequest, @Body(new ContractPipe(SimulateRequestSchema)) body: SimulateRequest): Promise<SimulationResult> {
    return this.services.forward(NATS_ROUTES.simulationSimulate, { body }, requestIdOf(req), this.env.SIMULATE_TIMEOUT_MS);
  }
}
