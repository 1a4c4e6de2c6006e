import { ApiError } from './errors.js';

describe('ApiError.fromResponse', () => {
  it('maps the API error object: name, message, details, field issues, request id, Retry-After', () => {
    const body = JSON.stringify({
      error: true,
      name: 'ValidationError',
      message: 'buyAmount: must be wei as a decimal integer string (and 1 more)',
      details: [
        { path: 'buyAmount', message: 'must be wei as a decimal integer string' },
        { path: 'expiry', message: 'is required' },
      ],
    });
    const err = ApiError.fromResponse(400, new Headers({ 'x-request-id': 'req-1' }), body, 'POST', '/v1/intent');
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ status: 400, name: 'ValidationError', requestId: 'req-1', retryAfterMs: null, method: 'POST', path: '/v1/intent' });
    expect(err.message).toBe('buyAmount: must be wei as a decimal integer string (and 1 more)');
    expect(err.fieldIssues.map((i) => i.path)).toEqual(['buyAmount', 'expiry']);
  });

  it('reads Retry-After and a request id from details when the header is absent', () => {
    const err = ApiError.fromResponse(
      503,
      new Headers({ 'retry-after': '2' }),
      JSON.stringify({ error: true, name: 'ServiceUnavailable', message: 'down', details: { requestId: 'r-9' } }),
      'GET',
      '/v1/intent/x',
    );
    expect(err).toMatchObject({ status: 503, name: 'ServiceUnavailable', retryAfterMs: 2000, requestId: 'r-9', details: { requestId: 'r-9' } });
    expect(err.fieldIssues).toEqual([]);
  });

  it('is an HttpError naming the status when the body is not the API error object', () => {
    const err = ApiError.fromResponse(502, new Headers(), '<html>Bad gateway</html>', 'GET', '/v1/payouts');
    expect(err).toMatchObject({ status: 502, name: 'HttpError', details: null, requestId: null });
    expect(err.message).toBe('GET /v1/payouts answered HTTP 502: <html>Bad gateway</html>');
    expect(ApiError.fromResponse(500, new Headers(), '', 'GET', '/x').message).toBe('GET /x answered HTTP 500');
  });
});
