import { isDatabaseUnavailable } from './index.js';

describe('isDatabaseUnavailable', () => {
  it('recognises connection exhaustion and outages, directly or inside a driver error', () => {
    expect(isDatabaseUnavailable({ code: '53300', message: 'too many connections' })).toBe(true);
    expect(isDatabaseUnavailable({ driverError: { code: '57P01' }, message: 'terminating connection' })).toBe(true);
    expect(isDatabaseUnavailable({ code: 'ECONNREFUSED' })).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('leaves other errors alone', () => {
    expect(isDatabaseUnavailable({ code: '23505', message: 'duplicate key' })).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
