import { errors as natsErrors } from '@nats-io/transport-node';
import { infrastructureErrorPayload, infrastructureFailure, isDatabaseUnavailable } from './index.js';
import { NatsRequestFailed } from './nats-request.js';

describe('infrastructureFailure', () => {
  it('recognises the database failing by SQLSTATE class, directly or inside a driver error', () => {
    for (const code of ['08006', '08001', '28000', '28P01', '3D000', '53300', '53100', '57P01', '57P03', '57P04', '57014', '58030', '25006', '25P03']) {
      expect({ code, failure: infrastructureFailure({ code, message: 'x' }) }).toEqual({
        code,
        failure: { dependency: 'database', name: 'ServiceUnavailable', code },
      });
    }
    expect(infrastructureFailure({ driverError: { code: '3D000' }, query: 'SELECT 1', message: 'database "x" does not exist' })).toMatchObject({
      dependency: 'database',
      code: '3D000',
    });
    expect(isDatabaseUnavailable({ code: 'ECONNREFUSED' })).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('no connection'), { name: 'CannotExecuteNotConnectedError' }))).toBe(true);
  });

  it('leaves errors about the request (or bugs) alone', () => {
    for (const code of ['23505', '23503', '22P02', '40001', '40P01', '42P01', '42501', 'XX000'])
      expect(infrastructureFailure({ code, message: 'x' })).toBeNull();
    expect(infrastructureFailure(new Error('boom'))).toBeNull();
    expect(infrastructureFailure(new RangeError('Maximum call stack size exceeded'))).toBeNull();
    expect(infrastructureFailure(null)).toBeNull();
    expect(infrastructureFailure('3D000')).toBeNull();
  });

  it('maps NATS failures: no responders, closed or draining connection → 503; timeouts → 504', () => {
    expect(infrastructureFailure(new NatsRequestFailed('no_responders', 'x'))).toMatchObject({ dependency: 'nats', name: 'ServiceUnavailable' });
    expect(infrastructureFailure(new NatsRequestFailed('transport', 'x'))).toMatchObject({ dependency: 'nats', name: 'ServiceUnavailable' });
    expect(infrastructureFailure(new NatsRequestFailed('timeout', 'x'))).toMatchObject({ dependency: 'nats', name: 'Timeout' });
    expect(infrastructureFailure(new NatsRequestFailed('too_large', 'x'))).toBeNull();
    expect(infrastructureFailure(new natsErrors.NoRespondersError('x'))).toMatchObject({ name: 'ServiceUnavailable' });
    expect(infrastructureFailure(new natsErrors.ClosedConnectionError())).toMatchObject({ name: 'ServiceUnavailable' });
    expect(infrastructureFailure(new natsErrors.DrainingConnectionError())).toMatchObject({ name: 'ServiceUnavailable' });
    expect(infrastructureFailure(new natsErrors.TimeoutError())).toMatchObject({ dependency: 'nats', name: 'Timeout' });
  });

  it('answers without internals', () => {
    const payload = infrastructureErrorPayload(infrastructureFailure({ code: '3D000', message: 'database "ti_secret" does not exist' })!);
    expect(payload).toEqual({ name: 'ServiceUnavailable', message: 'The database is unavailable; retry shortly', details: null });
  });
});
