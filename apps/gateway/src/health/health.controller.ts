import { Controller, Get, HttpCode, Req, Res } from '@nestjs/common';
import { NATS_ROUTES, type HealthReply, type Liveness, type Readiness, type ServicesHealth, type ServiceState } from '@tradeinfra/contracts';
import type { Request, Response } from 'express';
import { ApiKeysRepository } from '../auth/api-keys.repository.js';
import { requestIdOf } from '../http/request-context.js';
import { Metrics } from '../metrics/metrics.js';
import { ServiceClient } from '../nats/service-client.js';

const CHECK_TIMEOUT_MS = 1_000;

/** The services behind the gateway, by the name `/health/services` reports them under. */
const SERVICES: ReadonlyArray<[name: string, route: typeof NATS_ROUTES.intentHealth]> = [
  ['intent-service', NATS_ROUTES.intentHealth],
  ['simulation-service', NATS_ROUTES.simulationHealth],
  ['payout-service', NATS_ROUTES.payoutHealth],
  ['orderflow-service', NATS_ROUTES.orderflowHealth],
];

export type { ServiceState };

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
  health(): Liveness {
    return { status: 'ok' };
  }

  /**
   * Readiness of this gateway replica: 200 when what it needs itself answers (its database, for
   * API keys, and NATS), else 503 with Retry-After. Each service's responders are checked too and
   * named in `failing` when down (status `degraded`), without making the gateway unready: its
   * routes answer 503 on their own, on every replica alike.
   */
  @Get('ready')
  async ready(@Req() req: Request, @Res() res: Response): Promise<void> {
    const [database, nats, ...services] = await Promise.all([
      timed(this.keys.ping()),
      this.services.ping(CHECK_TIMEOUT_MS),
      ...SERVICES.map(([, route]) => timed(this.services.forward(route, {}, requestIdOf(req), CHECK_TIMEOUT_MS))),
    ]);
    const checks: Readiness['checks'] = {
      database: database.state,
      nats: nats ? 'up' : 'down',
      services: Object.fromEntries(SERVICES.map(([name], i) => [name, services[i]!.state])),
    };
    const failing = [
      ...(checks.database === 'down' ? ['database'] : []),
      ...(checks.nats === 'down' ? ['nats'] : []),
      ...SERVICES.filter(([name]) => checks.services[name] === 'down').map(([name]) => name),
    ];
    const ok = checks.database === 'up' && checks.nats === 'up';
    if (!ok) res.setHeader('retry-after', '1');
    const body: Readiness = { status: !ok ? 'unavailable' : failing.length > 0 ? 'degraded' : 'ok', checks, failing };
    res.status(ok ? 200 : 503).json(body);
  }

  /**
   * Each service's state as this gateway sees it (a health request over NATS, 1 s at most), its
   * latency, and the chain endpoints it reads (head, lag, state). Always 200: it informs, it does
   * not gate; `status` is `degraded` when a service is down or a chain endpoint is down or lagging.
   */
  @Get('health/services')
  async servicesHealth(@Req() req: Request): Promise<ServicesHealth> {
    const states = await Promise.all(
      SERVICES.map(async ([name, route]) => [name, await timed(this.services.forward(route, {}, requestIdOf(req), CHECK_TIMEOUT_MS))] as const),
    );
    const healthy = (s: ServiceState) => s.state === 'up' && (s.chains ?? []).every((c) => c.endpoints.every((e) => e.state === 'up' || e.state === 'unknown'));
    return {
      status: states.every(([, s]) => healthy(s)) ? 'ok' : 'degraded',
      services: Object.fromEntries(states),
    };
  }

  @Get('metrics')
  async metricsText(@Res() res: Response): Promise<void> {
    res.setHeader('content-type', this.metrics.registry.contentType);
    res.send(await this.metrics.registry.metrics());
  }
}

/** Whether `work` settles successfully within CHECK_TIMEOUT_MS, how long it took, and the chains the service reported. */
async function timed(work: Promise<HealthReply | unknown>): Promise<ServiceState> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const reply = await Promise.race([work.then((r) => ({ r })), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), CHECK_TIMEOUT_MS)))]);
    if (!reply) return { state: 'down', latencyMs: null };
    const chains = (reply.r as HealthReply | undefined)?.chains;
    return { state: 'up', latencyMs: Math.round((performance.now() - started) * 10) / 10, ...(chains && chains.length > 0 ? { chains } : {}) };
  } catch {
    return { state: 'down', latencyMs: null };
  } finally {
    clearTimeout(timer);
  }
}
