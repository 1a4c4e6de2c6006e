import { TestNatsServer } from '@tradeinfra/test-support';
import { loadEnv } from '../config/env.js';
import { GatewayError, httpStatusOf } from '../http/gateway-error.js';
import { fitBodyLimits } from '../bootstrap.js';
import { ServiceClient } from '../nats/service-client.js';

describe('what NATS can carry (its max_payload, 1 MiB here)', () => {
  let nats: TestNatsServer;
  let client: ServiceClient;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    client = new ServiceClient(loadEnv({ ...process.env, NATS_URL: nats.url }));
    await client.onModuleInit();
  });
  afterAll(async () => {
    await client?.onModuleDestroy();
    await nats?.dispose();
  });

  it('reads the server max_payload at connect', () => {
    expect(client.maxPayload).toBe(1024 * 1024);
  });

  it('answers 413 for a request that would not fit in one NATS message (a retry would never help), naming both sizes', async () => {
    const error = (await client.request('simulation.simulate', { body: 'x'.repeat(1024 * 1024) }, 'req-1').catch((e: unknown) => e)) as GatewayError;
    expect(error).toBeInstanceOf(GatewayError);
    expect(httpStatusOf(error.name)).toBe(413);
    expect(error.message).toMatch(/^The request is \d+ bytes once forwarded to the simulation service; NATS carries at most 1048576 \(its max_payload\)$/);
  });

  it('lowers body limits at start to what fits in a NATS message with its envelope', () => {
    const limits = { limit: 64 * 1024, byPath: { '/v1/simulate': 1024 * 1024 } };
    fitBodyLimits(limits, 1024 * 1024);
    expect(limits).toEqual({ limit: 64 * 1024, byPath: { '/v1/simulate': 1024 * 1024 - 1024 } });
  });
});
