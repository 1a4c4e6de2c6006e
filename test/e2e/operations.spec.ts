import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { eventually, freePort, within } from '@tradeinfra/test-support';
import { Stack } from './harness.js';

/*
 * Operations (issue 10, item 8): JSON log lines name their service in every app, the request log
 * never prints a query string, /ready answers for the gateway's own needs while
 * /health/services shows each service, and every 503 carries Retry-After.
 */

const ROOT = join(import.meta.dirname, '..', '..');

interface Child {
  name: string;
  process: ChildProcess;
  stdout: string;
  stderr: string;
}

describe('operations', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await Stack.start();
    key = await stack.createKey({ scopes: ['admin'] });
  });
  afterAll(() => stack?.close());

  describe('each app run from its build with LOG_FORMAT=json', () => {
    const children: Child[] = [];
    let gatewayUrl = '';

    beforeAll(async () => {
      const port = await freePort();
      gatewayUrl = `http://127.0.0.1:${port}`;
      const env = {
        ...process.env,
        ...stack.db.env,
        NATS_URL: stack.nats.url,
        LOG_FORMAT: 'json',
        LOG_REQUESTS: 'true',
        PORT: String(port),
        HOST: '127.0.0.1',
        GATEWAY_DB_POOL_SIZE: '2',
        INTENT_DB_POOL_SIZE: '2',
        PAYOUT_DB_POOL_SIZE: '2',
        NO_COLOR: '1',
      };
      for (const name of ['gateway', 'intent-service', 'payout-service', 'simulation-service']) {
        const child: Child = {
          name,
          process: spawn(process.execPath, [join(ROOT, 'apps', name, 'dist', 'main.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }),
          stdout: '',
          stderr: '',
        };
        child.process.stdout!.on('data', (c: Buffer) => (child.stdout += c.toString()));
        child.process.stderr!.on('data', (c: Buffer) => (child.stderr += c.toString()));
        children.push(child);
      }
      await Promise.all(
        children.map((c) => eventually(`${c.name} listening (output: ${c.stdout}${c.stderr})`, () => /listening on/.test(c.stdout), 60_000, 100)),
      );
    });

    afterAll(async () => {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.process.exitCode !== null) return resolve();
              c.process.once('exit', () => resolve());
              c.process.kill('SIGTERM');
              setTimeout(() => c.process.kill('SIGKILL'), 10_000).unref();
            }),
        ),
      );
    });

    /** Every stdout line of the child, parsed (each must be one JSON object). */
    const lines = (c: Child) =>
      c.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => ({ line, json: JSON.parse(line) as Record<string, unknown> }));

    it('every line is a JSON object with a `service` field naming the app', async () => {
      // A request through the spawned gateway, so it logs more than its start.
      expect((await fetch(`${gatewayUrl}/v1/intent/${randomUUID()}`, { headers: { 'x-api-key': key } })).status).toBe(404);
      for (const c of children) {
        const parsed = await eventually(`${c.name} lines`, () => (lines(c).length > 0 ? lines(c) : undefined));
        for (const { line, json } of parsed) {
          expect(`${c.name}: ${line}`).toBeTruthy();
          expect({ line, service: json.service }).toEqual({ line, service: c.name });
          expect(json).toMatchObject({ level: expect.any(String), message: expect.anything() });
        }
        expect(parsed.some(({ json }) => /listening on/.test(String(json.message)))).toBe(true);
      }
    });

    it('the request log shows the path, never the query string (a key sent there is not written)', async () => {
      const gateway = children.find((c) => c.name === 'gateway')!;
      const id = randomUUID();
      const secret = `ti_${'s'.repeat(43)}`;
      const res = await fetch(`${gatewayUrl}/v1/intent/${id}?api_key=${secret}&key=${encodeURIComponent(key)}&token`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(404);
      const line = await eventually('the request line', () => lines(gateway).find(({ json }) => String(json.message).includes(id)));
      expect(line.json).toMatchObject({
        service: 'gateway',
        context: 'Request',
        message: expect.stringMatching(new RegExp(`^GET /v1/intent/${id} 404 [\\d.]+ms request=\\S+$`)),
      });
      for (const c of children) {
        const all = c.stdout + c.stderr;
        expect(all).not.toContain(secret);
        expect(all).not.toContain(key);
        expect(all).not.toContain('api_key');
      }
    });
  });

  describe('readiness vs the services behind the gateway', () => {
    it('/ready stays 200 with the payout and simulation services down; /health/services shows them down; their routes answer 503 with Retry-After', async () => {
      await stack.stopSimulation();
      for (const app of stack.payoutReplicas.splice(0)) await app.close();

      const ready = await stack.request('GET', '/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'degraded',
        checks: {
          database: 'up',
          nats: 'up',
          services: { 'intent-service': 'up', 'simulation-service': 'down', 'payout-service': 'down', 'orderflow-service': 'up' },
        },
        failing: ['simulation-service', 'payout-service'],
      });

      const services = await within(stack.request('GET', '/health/services'), 5_000, '/health/services');
      expect(services.status).toBe(200);
      expect(services.body).toEqual({
        status: 'degraded',
        services: {
          'intent-service': { state: 'up', latencyMs: expect.any(Number) },
          'simulation-service': { state: 'down', latencyMs: null },
          'payout-service': { state: 'down', latencyMs: null },
          'orderflow-service': { state: 'up', latencyMs: expect.any(Number) },
        },
      });

      for (const [method, path, body] of [
        ['GET', '/v1/payouts', undefined],
        ['POST', '/v1/simulate', { chainId: 1, calls: [{ from: `0x${'1'.repeat(40)}` }] }],
      ] as const) {
        const res = await stack.request(method, path, { key, ...(body ? { body } : {}) });
        expect(`${path} ${res.status}`).toBe(`${path} 503`);
        expect(res.body).toMatchObject({ error: true, name: 'ServiceUnavailable' });
        expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      }
      // What does not need them still works.
      expect((await stack.request('GET', `/v1/intent/${randomUUID()}`, { key })).status).toBe(404);

      await stack.addPayoutReplica();
      await eventually(
        'the payout service up again',
        async () => (await stack.request('GET', '/health/services')).body.services['payout-service'].state === 'up',
      );
      expect((await stack.request('GET', '/v1/payouts', { key })).status).toBe(200);
    });
  });
});
