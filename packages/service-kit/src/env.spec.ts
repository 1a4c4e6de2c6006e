import { z } from 'zod';
import { envFlag, envInt, loadServiceEnv, LOG_ENV, POSTGRES_ENV } from './env.js';
import { NATS_ENV } from './nats-connect.js';

const Schema = z.object({ ...NATS_ENV, ...POSTGRES_ENV, ...LOG_ENV, WORKERS: envInt(1, 8).default(2), FAST: envFlag(true) });

describe('loadServiceEnv', () => {
  it('applies the shared defaults and coerces numbers and flags', () => {
    expect(loadServiceEnv('svc', Schema, { PGPORT: '6432', LOG_REQUESTS: 'true' })).toEqual({
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_TLS: false,
      NATS_STREAM_REPLICAS: 1,
      NATS_CHECK_MESSAGES: false,
      PGHOST: '127.0.0.1',
      PGPORT: 6432,
      PGDATABASE: 'tradeinfra',
      LOG_FORMAT: 'pretty',
      LOG_REQUESTS: true,
      WORKERS: 2,
      FAST: true,
    });
  });

  it('lists every problem at once, the schema’s and the extra checks’, naming the service', () => {
    expect(() => loadServiceEnv('svc', Schema, { PGPORT: '0', LOG_FORMAT: 'xml', WORKERS: '9' })).toThrow(
      /^Invalid svc configuration:\n {2}PGPORT: .+\n {2}LOG_FORMAT: .+\n {2}WORKERS: .+$/,
    );
    const withChains = () =>
      loadServiceEnv('svc', Schema, { RPC_URL_1: 'ftp://x' }, (_env, problems) => {
        problems.push('  RPC_URL_1: must be an http(s) URL');
        return { chains: [] };
      });
    expect(withChains).toThrow('Invalid svc configuration:\n  RPC_URL_1: must be an http(s) URL');
    // The extra checks run when the schema fails too: both kinds of problem are listed.
    expect(() =>
      loadServiceEnv('svc', Schema, { WORKERS: '0' }, (base, problems) => {
        expect(base).toBeNull();
        problems.push('  RPC_URL_1: must be an http(s) URL');
        return {};
      }),
    ).toThrow(/WORKERS: .+\n {2}RPC_URL_1: must be an http\(s\) URL$/);
  });

  it('adds what the extra checks return', () => {
    const env = loadServiceEnv('svc', Schema, {}, (base) => ({ workersTwice: (base?.WORKERS ?? 0) * 2 }));
    expect(env.workersTwice).toBe(4);
  });
});
