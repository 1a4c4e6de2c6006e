import { Controller, Get, HttpCode, Req, Res } from '@nestjs/common';
import { INTENT_HEALTH, PAYOUT_HEALTH, SIMULATION_HEALTH } from '@tradeinfra/contracts';
import type { Request, Response } from 'express';
import { ApiKeysRepository } from '../auth/api-keys.repository.js';
import { requestIdOf } from '../http/request-context.js';
import { Metrics } from '../metrics/metrics.js';
import { ServiceClient } from '../nats/service-client.js';

const READY_TIMEOUT_MS = 1_000;

@Controller()
export class HealthController {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly services: ServiceClient,
    private readonly metrics: Metrics,
  ) {}

  /** Liveness: the process answers. */
  @Get('health')
  @HttpCode(200)
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: 200 only when Postgres and every service answer. */
  @Get('ready')
  async ready(@Req() req: Request, @Res() res: Response): Promise<void> {
    const ask = (subject: string) =>
      withTimeout(this.services.request(subject, {}, requestIdOf(req), READY_TIMEOUT_MS), READY_TIMEOUT_MS);
    const [database, intentService, simulationService, payoutService] = await Promise.all([
      withTimeout(this.keys.ping(), READY_TIMEOUT_MS),
      ask(INTENT_HEALTH),
      ask(SIMULATION_HEALTH),
      ask(PAYOUT_HEALTH),
    ]);
    const checks = { database, intentService, simulationService, payoutService };
    const ok = Object.values(checks).every(Boolean);
    res.status(ok ? 200 : 503).json({
      status: ok ? 'ok' : 'unavailable',
      checks: Object.fromEntries(Object.entries(checks).map(([name, up]) => [name, up ? 'up' : 'down'])),
    });
  }

  @Get('metrics')
  async metricsText(@Res() res: Response): Promise<void> {
    res.setHeader('content-type', this.metrics.registry.contentType);
    res.send(await this.metrics.registry.metrics());
  }
}

async function withTimeout(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
