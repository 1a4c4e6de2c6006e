import type { INestMicroservice } from '@nestjs/common';
import { eventually, freePort, TestNatsServer } from '@tradeinfra/test-support';
import { startMicroservice } from './index.js';
import { plainNatsEnv } from './nats-connect.js';

/** The probes Kubernetes asks of a NATS service (HEALTH_PORT), on a real NATS server. */
describe('health server', () => {
  let nats: TestNatsServer;
  let app: INestMicroservice;
  let base: string;
  let dependencyUp = true;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    const port = await freePort();
    class EmptyModule {}
    app = await startMicroservice(
      { module: EmptyModule },
      {
        name: 'probe-test',
        queue: 'probe-test',
        nats: plainNatsEnv(nats.url),
        logRequests: false,
        health: { HEALTH_PORT: port, HEALTH_HOST: '127.0.0.1', ready: async () => (dependencyUp ? undefined : Promise.reject(new Error('database down'))) },
      },
      false,
    );
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await nats?.dispose();
  });

  it('answers liveness and readiness, 404 elsewhere', async () => {
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { nats: 'up', dependencies: 'up' } });
    expect((await fetch(`${base}/healthz`)).status).toBe(404);
  });

  it('is not ready while its own dependency or NATS is down, and ready again after', async () => {
    dependencyUp = false;
    const down = await fetch(`${base}/ready`);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(await down.json()).toEqual({ status: 'unavailable', checks: { nats: 'up', dependencies: 'down' } });
    dependencyUp = true;

    await nats.stop();
    expect((await fetch(`${base}/ready`)).status).toBe(503);
    // Liveness does not follow NATS: a restart would not bring the server back.
    expect((await fetch(`${base}/health`)).status).toBe(200);
    await nats.restart();
    await eventually('ready after NATS is back', async () => (await fetch(`${base}/ready`)).status === 200, 10_000, 100);
  });

  it('stops serving with the app', async () => {
    await app.close();
    await expect(fetch(`${base}/health`)).rejects.toThrow();
  });
});
