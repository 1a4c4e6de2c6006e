import { connect, type NatsConnection } from '@nats-io/transport-node';
import { NATS_ROUTES, REQUEST_ID_HEADER } from '@tradeinfra/contracts';
import { NatsConnections, natsRequest, NatsRequestFailed, ServiceReplyError } from '@tradeinfra/service-kit';
import { TestNatsServer } from '@tradeinfra/test-support';
import { loadEnv } from '../config/env.js';
import { GatewayError, httpStatusOf } from '../http/gateway-error.js';
import { fitBodyLimits } from '../bootstrap.js';
import { ServiceClient } from '../nats/service-client.js';

describe('what NATS can carry (its max_payload, 1 MiB here)', () => {
  let nats: TestNatsServer;
  let client: ServiceClient;
  let connections: NatsConnections;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    const env = loadEnv({ ...process.env, ...nats.env });
    connections = new NatsConnections(env, 'gateway');
    client = new ServiceClient(env, connections);
    await client.onModuleInit();
  });
  afterAll(async () => {
    client?.onModuleDestroy();
    await connections?.close();
    await nats?.dispose();
  });

  it('reads the server max_payload at connect', () => {
    expect(client.maxPayload).toBe(1024 * 1024);
  });

  it('answers 413 for a request that would not fit in one NATS message (a retry would never help), naming both sizes', async () => {
    const error = (await client.forward(NATS_ROUTES.simulationSimulate, { body: 'x'.repeat(1024 * 1024) }, 'req-1').catch((e: unknown) => e)) as GatewayError;
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

describe('natsRequest (service-kit): one request/reply in the services’ envelope', () => {
  let nats: TestNatsServer;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.dispose();
  });

  /** A service answering `subject` with what `answer` returns for the request id and data it got. */
  function serve(subject: string, answer: (requestId: string | undefined, data: unknown) => unknown): void {
    const sub = nc.subscribe(subject);
    void (async () => {
      for await (const msg of sub) {
        const request = JSON.parse(msg.string()) as { data: unknown };
        msg.respond(JSON.stringify(answer(msg.headers?.get(REQUEST_ID_HEADER), request.data)));
      }
    })();
  }

  it('carries the request id to the service and answers its value', async () => {
    serve('kit.echo', (requestId, data) => ({ response: { requestId, data } }));
    await nc.flush();
    expect(await natsRequest(nc, 'kit.echo', { n: 1 }, { requestId: 'req-42', timeoutMs: 2_000 })).toEqual({ requestId: 'req-42', data: { n: 1 } });
    // Without one, a fresh id is sent all the same.
    const { requestId } = await natsRequest<{ requestId: string }>(nc, 'kit.echo', {}, { timeoutMs: 2_000 });
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('throws the service’s own error as ServiceReplyError', async () => {
    serve('kit.fail', () => ({ err: { name: 'NotFound', message: 'no such thing', details: { id: 'x' } } }));
    await nc.flush();
    const err = (await natsRequest(nc, 'kit.fail', {}, { timeoutMs: 2_000 }).catch((e: unknown) => e)) as ServiceReplyError;
    expect(err).toBeInstanceOf(ServiceReplyError);
    expect(err.payload).toEqual({ name: 'NotFound', message: 'no such thing', details: { id: 'x' } });
  });

  it('says why no service answered: no responders, timeout, too large', async () => {
    const kind = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => (e instanceof NatsRequestFailed ? e.kind : e),
      );
    expect(await kind(natsRequest(nc, 'kit.nobody', {}, { timeoutMs: 2_000 }))).toBe('no_responders');
    nc.subscribe('kit.silent'); // subscribed, never answers
    await nc.flush();
    expect(await kind(natsRequest(nc, 'kit.silent', {}, { timeoutMs: 100 }))).toBe('timeout');
    expect(await kind(natsRequest(nc, 'kit.echo', { x: 'y'.repeat(2_000) }, { timeoutMs: 2_000, maxPayload: 1_000 }))).toBe('too_large');
  });
});
