import { Body, Controller, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import { SIMULATION_SIMULATE, SimulateRequestSchema, type SimulationResult } from '@tradeinfra/contracts';
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

  /** Checked here with the contracts' schema, then simulated by the simulation service. */
  @Post('simulate')
  @HttpCode(200)
  @RequireScope('simulate')
  simulate(@Req() req: AuthenticatedRequest, @Body(new ContractPipe(SimulateRequestSchema)) _shape: unknown): Promise<SimulationResult> {
    return this.services.request<SimulationResult>(SIMULATION_SIMULATE, { body: req.body }, requestIdOf(req), this.env.SIMULATE_TIMEOUT_MS);
  }
}
