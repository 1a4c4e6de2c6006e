import { Controller, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import { SIMULATION_SIMULATE, type SimulationResult } from '@tradeinfra/contracts';
import { AuthGuard, type AuthenticatedRequest } from '../auth/auth.guard.js';
import { RequireScope } from '../auth/scopes.js';
import { ENV, type GatewayEnv } from '../config/env.js';
import { requestIdOf } from '../http/request-context.js';
import { ServiceClient } from '../nats/service-client.js';

@Controller('v1')
@UseGuards(AuthGuard)
export class SimulationController {
  constructor(
    private readonly services: ServiceClient,
    @Inject(ENV) private readonly env: GatewayEnv,
  ) {}

  /**
   * Handed to the simulation service as it came (read exactly by the body parser): the service
   * validates it with the contracts' `SimulateRequestSchema`, and its ValidationError answers
   * 400 here like any other, so the body is checked once, not twice on the hot path.
   */
  @Post('simulate')
  @HttpCode(200)
  @RequireScope('simulate')
  simulate(@Req() req: AuthenticatedRequest): Promise<SimulationResult> {
    return this.services.request<SimulationResult>(SIMULATION_SIMULATE, { body: req.body }, requestIdOf(req), this.env.SIMULATE_TIMEOUT_MS);
  }
}
