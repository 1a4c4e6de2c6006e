import { ErrorName, type ErrorBody, type RpcErrorPayload } from '@tradeinfra/contracts';
import type { Response } from 'express';

/** A failure the gateway answers itself, or a service's failure passed through. */
export class GatewayError extends Error {
  constructor(
    override readonly name: ErrorName,
    message: string,
    readonly details: unknown = null,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  static from(payload: RpcErrorPayload): GatewayError {
    return new GatewayError(payload.name, payload.message, payload.details);
  }

  body(): ErrorBody {
    return { error: true, name: this.name, message: this.message, details: this.details };
  }
}

/** The one place an error name becomes an HTTP status. */
export function httpStatusOf(name: ErrorName): number {
  switch (name) {
    case ErrorName.Validation:
    case ErrorName.Rule:
      return 400;
    case ErrorName.Unauthorized:
      return 401;
    case ErrorName.Forbidden:
      return 403;
    case ErrorName.NotFound:
      return 404;
    case ErrorName.Conflict:
      return 409;
    case ErrorName.RequestTimeout:
      return 408;
    case ErrorName.PayloadTooLarge:
      return 413;
    case ErrorName.Unprocessable:
      return 422;
    case ErrorName.RateLimited:
      return 429;
    case ErrorName.Internal:
      return 500;
    case ErrorName.Upstream:
      return 502;
    case ErrorName.ServiceUnavailable:
      return 503;
    case ErrorName.Timeout:
      return 504;
    default: {
      const unknown: never = name;
      throw new Error(`unmapped error name ${String(unknown)}`);
    }
  }
}

/** The challenge of every 401 (RFC 7235): the schemes a key is accepted with. */
export const WWW_AUTHENTICATE = 'Bearer realm="tradeinfra", Token realm="tradeinfra"';

/**
 * Headers some statuses always carry, unless the error sets its own: a 401 names the schemes to
 * authenticate with; a 503 says when to retry (RFC 9110: Retry-After), as a 429 does.
 */
function defaultHeaders(name: ErrorName): Record<string, string> {
  switch (name) {
    case ErrorName.Unauthorized:
      return { 'www-authenticate': WWW_AUTHENTICATE };
    case ErrorName.ServiceUnavailable:
      return { 'retry-after': '1' };
    default:
      return {};
  }
}

/** Writes `error` as the response: its status, its headers, the spec's error object. */
export function sendError(res: Response, error: GatewayError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries({ ...defaultHeaders(error.name), ...error.headers })) res.setHeader(name, value);
  // Explicitly: a route may have set another content type (text/html on /docs) before it failed.
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.status(httpStatusOf(error.name)).json(error.body());
}
