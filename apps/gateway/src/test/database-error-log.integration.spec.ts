import { Logger, type LoggerService } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { REQUEST_ID_HEADER } from '@tradeinfra/contracts';
import { AllRpcExceptionsFilter } from '@tradeinfra/service-kit';
import { TestDatabase } from '@tradeinfra/test-support';
import type { ArgumentsHost } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { firstValueFrom } from 'rxjs';
import { ApiKeysRepository } from '../auth/api-keys.repository.js';
import { loadEnv } from '../config/env.js';
import { createDataSource, runMigrations } from '../database/data-source.js';
import { HttpErrorFilter } from '../http/exception.filter.js';

/*
 * Database errors are logged as SQLSTATE code and message (quoted values elided) with the
 * request id: never the SQL text nor its parameters, which TypeORM's QueryFailedError carries and
 * its own loggers print. Real queries failing on a real Postgres, every log channel captured.
 */

class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown, ...rest: unknown[]) {
    this.lines.push([message, ...rest].map(String).join(' '));
  }
  error = this.log;
  warn = this.log;
  debug = this.log;
  verbose = this.log;
  fatal = this.log;
}

/** Runs `work` with Nest's logger, console and both standard streams captured; returns all that was written. */
async function captured(work: () => Promise<void>): Promise<string> {
  const logger = new CapturingLogger();
  const written: string[] = [];
  const restore: Array<() => void> = [];
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: unknown) => (written.push(String(chunk)), true)) as typeof stream.write;
    restore.push(() => (stream.write = original));
  }
  for (const method of ['log', 'error', 'warn', 'info', 'debug'] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => written.push(args.map(String).join(' '));
    restore.push(() => (console[method] = original));
  }
  Logger.overrideLogger(logger);
  try {
    await work();
  } finally {
    for (const undo of restore) undo();
    Logger.overrideLogger(false);
  }
  return [...logger.lines, ...written].join('\n');
}

function httpHost(requestId: string): ArgumentsHost {
  const res = { headersSent: false, setHeader: () => undefined, status: () => res, json: () => undefined };
  const req = { id: requestId, method: 'POST', path: '/v1/sources' };
  return { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ArgumentsHost;
}

function rpcHost(requestId: string): ArgumentsHost {
  const h = natsHeaders();
  h.set(REQUEST_ID_HEADER, requestId);
  const ctx = new NatsContext(['payout.source.register', h]);
  return { switchToRpc: () => ({ getContext: () => ctx }) } as unknown as ArgumentsHost;
}

describe('database errors in the logs', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const SECRET = 'ti_secretValueThatMustNeverBeLogged_0123456789abcdefghijk';

  beforeAll(async () => {
    db = await TestDatabase.create('dberrlog');
    ds = await createDataSource(loadEnv({ ...process.env, ...db.env, GATEWAY_DB_POOL_SIZE: '2' })).initialize();
    await runMigrations(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** A real failing query: the NUL tenant name of issue 10 (`invalid byte sequence … 0x00`). */
  async function failNul(): Promise<unknown> {
    return new ApiKeysRepository(ds).findTenantByName(`acme\u0000${SECRET}`).then(
      () => {
        throw new Error('expected the query to fail');
      },
      (err: unknown) => err,
    );
  }

  it('TypeORM logs nothing of a failing query (its own logger printed the SQL with -- PARAMETERS)', async () => {
    let error: unknown;
    const out = await captured(async () => {
      error = await failNul();
    });
    expect((error as { query?: string }).query).toContain('SELECT id FROM gateway.tenants');
    expect(out).not.toContain('SELECT');
    expect(out).not.toContain('PARAMETERS');
    expect(out).not.toContain(SECRET);
  });

  it('the HTTP filter logs code, message and request id only', async () => {
    const error = await failNul();
    const out = await captured(async () => new HttpErrorFilter().catch(error, httpHost('req-http-1')));
    expect(out).toMatch(/unhandled error \(request req-http-1\): database error 22021: invalid byte sequence for encoding "…": 0x00/);
    expect(out).not.toContain('SELECT');
    expect(out).not.toContain('gateway.tenants');
    expect(out).not.toContain(SECRET);
    expect(out).not.toMatch(/\n\s+at /); // no stack
  });

  it('the services’ RPC filter too, and quoted values in the message are elided', async () => {
    const error = await ds.query('SELECT $1::int AS n', [SECRET]).then(
      () => null,
      (err: unknown) => err,
    );
    expect(String((error as Error).message)).toContain(SECRET); // Postgres quotes the input…
    const out = await captured(async () => {
      await firstValueFrom(new AllRpcExceptionsFilter().catch(error, rpcHost('req-rpc-7'))).catch(() => undefined);
    });
    expect(out).toMatch(/unhandled error on payout\.source\.register \(request req-rpc-7\): database error 22P02: invalid input syntax for type integer: "…"/);
    expect(out).not.toContain(SECRET); // …the log does not
    expect(out).not.toContain('SELECT');
  });
});
