import { jest } from '@jest/globals';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeRpcReply, encodeRpcRequest, MAX_NATS_JSON_DEPTH, stringifyJson } from '@tradeinfra/contracts';
import { TestNatsServer } from '@tradeinfra/test-support';
import { DataSource } from 'typeorm';
import { natsRequest, plainNatsEnv, startMicroservice } from './index.js';

/*
 * A service cannot be brought down by what it reads off NATS (issue 25, item 2): a request nested
 * 400,000 levels deep (or not JSON at all) is answered ValidationError without its handler
 * running, and the service goes on answering. The handler here recurses over its payload
 * (stringifyJson), as a real one may (serialisers, schemas). And a handler whose database or
 * NATS fails answers ServiceUnavailable / Timeout, not InternalError (issue 25, item 3).
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

let natsUrl = '';

@Controller()
class DependentController {
  /** Connects to a database that does not exist (3D000), as a service whose database was dropped. */
  @MessagePattern('test.database')
  async database(): Promise<never> {
    const ds = new DataSource({ type: 'postgres', host: process.env.PGHOST ?? '127.0.0.1', database: 'ti_no_such_database', username: 'postgres' });
    await ds.initialize();
    throw new Error('unreachable');
  }

  /** Asks a subject nobody answers, or one that never answers. */
  @MessagePattern('test.nats')
  async nats(@Payload() data: { subject: string; timeoutMs: number }): Promise<never> {
    const nc = await connect({ servers: natsUrl });
    try {
      return await natsRequest<never>(nc, data.subject, {}, { timeoutMs: data.timeoutMs });
    } finally {
      await nc.close();
    }
  }
}

@Module({ controllers: [EchoController, DependentController] })
class EchoModule {}

describe('a microservice reading hostile NATS requests', () => {
  let nats: TestNatsServer;
  let app: INestMicroservice;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    natsUrl = nats.url;
    app = await startMicroservice({ module: EchoModule }, { name: 'echo', queue: 'echo', nats: plainNatsEnv(nats.url), logRequests: false }, false);
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

  describe('infrastructure failures inside a handler', () => {
    const call = async (subject: string, data: unknown) =>
      decodeRpcReply((await nc.request(subject, encodeRpcRequest(subject, data, 'x'), { timeout: 10_000 })).string());

    it('its database missing (3D000): ServiceUnavailable without the database’s name', async () => {
      const reply = await call('test.database', {});
      expect(reply).toEqual({ ok: false, error: { name: 'ServiceUnavailable', message: 'The database is unavailable; retry shortly', details: null } });
    });

    it('no responders on NATS: ServiceUnavailable; no answer in time: Timeout', async () => {
      // The server says "no responders" at once: a long timeout, so a loaded box cannot turn it into a timeout.
      expect(await call('test.nats', { subject: 'nobody.home', timeoutMs: 8_000 })).toMatchObject({
        ok: false,
        error: { name: 'ServiceUnavailable', details: null },
      });
      const silent = nc.subscribe('silent.service'); // takes the request, never answers
      try {
        expect(await call('test.nats', { subject: 'silent.service', timeoutMs: 200 })).toMatchObject({ ok: false, error: { name: 'Timeout', details: null } });
      } finally {
        silent.unsubscribe();
      }
    });
  });
});

@Controller()
class SlowController {
  static release: (() => void) | null = null;
  static started: (() => void) | null = null;

  /** Answers once the test lets it. */
  @MessagePattern('test.slow')
  async slow(): Promise<{ done: true }> {
    await new Promise<void>((resolve) => {
      SlowController.release = resolve;
      SlowController.started?.();
    });
    return { done: true };
  }
}

@Module({ controllers: [SlowController] })
class SlowModule {}

describe('a microservice closing', () => {
  let nats: TestNatsServer;
  let nc: NatsConnection;
  const start = () => startMicroservice({ module: SlowModule }, { name: 'slow', queue: 'slow', nats: plainNatsEnv(nats.url), logRequests: false }, false);
  const ask = (timeout = 10_000) => nc.request('test.slow', encodeRpcRequest('test.slow', {}, 'x'), { timeout });

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.dispose();
  });

  it('answers the request in flight before it lets go, and takes no new one', async () => {
    const app = await start();
    const started = new Promise<void>((resolve) => (SlowController.started = resolve));
    const reply = ask();
    await started;
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    // The close waits for the handler: it has not finished while the handler still runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    SlowController.release!();
    expect(decodeRpcReply((await reply).string())).toEqual({ ok: true, value: { done: true } });
    await closing;
    // Unsubscribed: the server says no one answers.
    await expect(ask()).rejects.toThrow(/no responders/i);
  });

  it('closes without waiting out a grace period when nothing is in flight', async () => {
    const app = await start();
    // With timers frozen, a close that waited on a timer (as Nest's own graceful close always waits
    // its grace period) would never finish.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      await app.close();
    } finally {
      jest.useRealTimers();
    }
  }, 5_000);
});
