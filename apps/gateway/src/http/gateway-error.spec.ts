import { ErrorName } from '@tradeinfra/contracts';
import { GatewayError, httpStatusOf } from './gateway-error.js';

describe('httpStatusOf', () => {
  it.each([
    [ErrorName.Validation, 400],
    [ErrorName.Rule, 400],
    [ErrorName.Unauthorized, 401],
    [ErrorName.Forbidden, 403],
    [ErrorName.NotFound, 404],
    [ErrorName.Conflict, 409],
    [ErrorName.PayloadTooLarge, 413],
    [ErrorName.RateLimited, 429],
    [ErrorName.Internal, 500],
    [ErrorName.Upstream, 502],
    [ErrorName.ServiceUnavailable, 503],
    [ErrorName.Timeout, 504],
  ])('%s → %d', (name, status) => {
    expect(httpStatusOf(name)).toBe(status);
  });

  it('maps every error name the contracts define', () => {
    for (const name of Object.values(ErrorName)) expect(httpStatusOf(name)).toBeGreaterThanOrEqual(400);
  });

  it('renders the spec error object', () => {
    expect(new GatewayError(ErrorName.NotFound, 'gone').body()).toEqual({ error: true, name: 'NotFound', message: 'gone', details: null });
  });
});
