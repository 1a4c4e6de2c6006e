import { createServer, type Server } from 'node:http';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';

/** Where a NATS service serves its probes (Kubernetes' liveness and readiness); port 0: not at all. */
export const HEALTH_ENV = {
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  HEALTH_HOST: z.string().min(1).default('0.0.0.0'),
};

export interface HealthServerSettings {
  HEALTH_PORT: number;
  HEALTH_HOST: string;
  /** What else the service needs to take work (its database): rejects when it cannot. */
  ready?: (app: INestMicroservice) => Promise<unknown>;
}

const CHECK_TIMEOUT_MS = 1_000;

/**
 * The probes of a service that otherwise speaks only NATS: `GET /health` (liveness: the process
 * answers) and `GET /ready` (its NATS connection answers a ping and `ready` resolves, each within
 * 1 s; else 503 with Retry-After). Closed with the app.
 */
export async function startHealthServer(app: INestMicroservice, settings: HealthServerSettings): Promise<Server> {
  const nats = () => app.unwrap<NatsConnection>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { status: 'method not allowed' });
    if (path === '/health') return send(200, { status: 'ok' });
    if (path !== '/ready') return send(404, { status: 'not found' });
    void Promise.all([within(nats().flush()), settings.ready ? within(settings.ready(app)) : Promise.resolve(true)]).then(([natsUp, ownUp]) => {
      const checks = { nats: natsUp ? 'up' : 'down', ...(settings.ready ? { dependencies: ownUp ? 'up' : 'down' } : {}) };
      if (natsUp && ownUp) send(200, { status: 'ok', checks });
      else send(503, { status: 'unavailable', checks }, { 'retry-after': '1' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.HEALTH_PORT, settings.HEALTH_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Closed with the app. Nest's app is a Proxy whose set trap drops assignments: define the
  // method on the app itself, calling the class's own close with the app as `this`.
  const close = (Object.getPrototypeOf(app) as { close: (this: INestMicroservice) => Promise<void> }).close;
  Object.defineProperty(app, 'close', {
    configurable: true,
    writable: true,
    value: async function (this: INestMicroservice): Promise<void> {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await close.call(this);
    },
  });
  return server;
}

/** True when `work` resolves within CHECK_TIMEOUT_MS. */
async function within(work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS)))]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
