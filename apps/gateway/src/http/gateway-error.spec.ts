import { ErrorName } from '@tradeinfra/contracts';
import type { Response } from 'express';
import { GatewayError, httpStatusOf, sendError, WWW_AUTHENTICATE } from './gateway-error.js';

describe('httpStatusOf', () => {
  it.each([
    [ErrorName.Validation, 400],
    [ErrorName.Rule, 400],
    [ErrorName.Unauthorized, 401],
    [ErrorName.Forbidden, 403],
    [ErrorName.NotFound, 404],
    [ErrorName.Conflict, 409],
    [ErrorName.RequestTimeout, 408],
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

describe('sendError', () => {
  const send = (error: GatewayError) => {
    const headers: Record<string, string> = {};
    let status = 0;
    let body: unknown;
    const res = {
      headersSent: false,
      setHeader: (name: string, value: string) => (headers[name.toLowerCase()] = value),
      status(code: number) {
        status = code;
        return this;
      },
      json: (b: unknown) => (body = b),
    };
    sendError(res as unknown as Response, error);
    return { headers, status, body };
  };

  it('a 401 always names the schemes to authenticate with (RFC 7235)', () => {
    expect(send(new GatewayError(ErrorName.Unauthorized, 'no key')).headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
    expect(WWW_AUTHENTICATE).toMatch(/^Bearer realm="[^"]+", Token realm="[^"]+"$/);
    const own = send(new GatewayError(ErrorName.Unauthorized, 'bad key', null, { 'www-authenticate': 'Bearer error="invalid_token"' }));
    expect(own.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('a 503 always says when to retry, unless it says so itself', () => {
    const plain = send(new GatewayError(ErrorName.ServiceUnavailable, 'down'));
    expect(plain).toMatchObject({ status: 503, headers: { 'retry-after': '1' }, body: { error: true, name: 'ServiceUnavailable' } });
    expect(send(new GatewayError(ErrorName.ServiceUnavailable, 'down', null, { 'retry-after': '7' })).headers['retry-after']).toBe('7');
    expect(send(new GatewayError(ErrorName.NotFound, 'gone')).headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
  });
});
