import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeRpcReply, encodeRpcRequest, MAX_NATS_JSON_DEPTH, stringifyJson } from '@tradeinfra/contracts';
import { TestNatsServer } from '@tradeinfra/test-support';
import { startMicroservice } from './index.js';

/*
 * A service cannot be brought down by what it reads off NATS (issue 25, item 2): a request nested
 * 400,000 levels deep (or not JSON at all) is answered ValidationError without its handler
 * running, and the service goes on answering. The handler here recurses over its payload
 * (stringifyJson), as a real one may (serialisers, schemas).
 */

const SUBJECT = 'test.echo';
const handled: number[] = [];

@Controller()
class EchoController {
  @MessagePattern(SUBJECT)
  echo(@Payload() data: unknown): { length: number } {
    handled.push(1);
    return { length: stringifyJson(data).length };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

describe('a microservice reading hostile NATS requests', () => {
  let nats: TestNatsServer;
  let app: INestMicroservice;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    app = await startMicroservice({ module: EchoModule }, { name: 'echo', queue: 'echo', natsUrl: nats.url, logRequests: false }, false);
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await nats?.dispose();
  });

  /** Sends `packet` as it is and decodes the service's answer. */
  const ask = async (packet: string) => decodeRpcReply<{ length: number }>((await nc.request(SUBJECT, packet, { timeout: 5_000 })).string());
  const envelope = (data: string) => `{"pattern":"${SUBJECT}","data":${data},"id":"0190a5c4-0000-7000-8000-000000000001"}`;

  it.each([
    ['400,000 nested arrays', envelope('['.repeat(400_000) + ']'.repeat(400_000))],
    // As deep as NATS's 1 MiB carries at 6 bytes a level.
    ['150,000 nested objects holding a big integer', envelope('{"a":'.repeat(150_000) + '123456789012345678901234567890' + '}'.repeat(150_000))],
    ['400,000 arrays never closed', envelope('['.repeat(400_000))],
    [
      `${MAX_NATS_JSON_DEPTH} levels of data inside the envelope (one level too many)`,
      envelope('['.repeat(MAX_NATS_JSON_DEPTH) + ']'.repeat(MAX_NATS_JSON_DEPTH)),
    ],
    ['text that is not JSON', envelope('{nope')],
  ])('%s: ValidationError, the handler never runs, the service still answers', async (_, packet) => {
    const before = handled.length;
    const reply = await ask(packet);
    expect(reply).toEqual({ ok: false, error: { name: 'ValidationError', message: expect.any(String), details: [{ path: '', message: expect.any(String) }] } });
    expect(handled.length).toBe(before);
    await expect(ask(encodeRpcRequest(SUBJECT, { a: [1] }, 'x'))).resolves.toEqual({ ok: true, value: { length: 9 } });
  });

  it('says why: the depth it takes', async () => {
    const reply = await ask(envelope('['.repeat(400_000)));
    expect(reply).toMatchObject({ error: { message: `must not nest arrays and objects deeper than ${MAX_NATS_JSON_DEPTH} levels` } });
  });

  it('takes what the edge lets in (64 levels) inside the envelope', async () => {
    const body = '['.repeat(64) + ']'.repeat(64);
    await expect(ask(envelope(`{"body":${body}}`))).resolves.toEqual({ ok: true, value: { length: 128 + 9 } });
  });
});
