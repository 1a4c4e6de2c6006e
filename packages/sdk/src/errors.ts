import type { ErrorName, FieldIssue } from '@tradeinfra/contracts';
import { parseRetryAfter } from './backoff.js';

/** The API's error names (`ValidationError`, `NotFound`, …); `HttpError` when the body was not the API's error object. */
export type ApiErrorName = ErrorName | 'HttpError';

/**
 * A non-2xx answer of the API. The body the gateway sends is `{error: true, name, message,
 * details}`; `details` of a `ValidationError` lists `{path, message}` per field.
 */
export class ApiError extends Error {
  /** The API's error name: `ValidationError`, `NotFound`, `Conflict`, `RateLimited`, … */
  override readonly name: ApiErrorName;
  readonly status: number;
  readonly details: unknown;
  /** The `x-request-id` of the answer (it finds the request in every service's logs), or null. */
  readonly requestId: string | null;
  /** `Retry-After` in ms (429, 503), or null. */
  readonly retryAfterMs: number | null;
  readonly headers: Headers;
  /** The answer's text as received. */
  readonly body: string;
  /** The method and path of the request (no query string). */
  readonly method: string;
  readonly path: string;

  constructor(init: {
    status: number;
    name: ApiErrorName;
    message: string;
    details: unknown;
    headers: Headers;
    body: string;
    method: string;
    path: string;
    /** The wall clock when the answer came (ms), for a `Retry-After` date. */
    now?: number;
  }) {
    super(init.message);
    this.name = init.name;
    this.status = init.status;
    this.details = init.details;
    this.headers = init.headers;
    this.body = init.body;
    this.method = init.method;
    this.path = init.path;
    this.requestId = init.headers.get('x-request-id') ?? requestIdOf(init.details);
    this.retryAfterMs = parseRetryAfter(init.headers.get('retry-after'), init.now);
  }

  /** The per-field problems of a `ValidationError` (empty for other errors). */
  get fieldIssues(): FieldIssue[] {
    if (!Array.isArray(this.details)) return [];
    return this.details.filter((d): d is FieldIssue => typeof d === 'object' && d !== null && typeof d.path === 'string' && typeof d.message === 'string');
  }

  /**
   * Builds the error from an answer: the API's error object when the body is one, else a
   * generic `HttpError` naming the status (a proxy's HTML page, an empty body).
   */
  static fromResponse(status: number, headers: Headers, text: string, method: string, path: string, now?: number): ApiError {
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (isErrorBody(parsed)) {
      return new ApiError({
        status,
        name: parsed.name as ApiErrorName,
        message: parsed.message,
        details: parsed.details ?? null,
        headers,
        body: text,
        method,
        path,
        now,
      });
    }
    const snippet = text.trim().slice(0, 200);
    return new ApiError({
      status,
      name: 'HttpError',
      message: `${method} ${path} answered HTTP ${status}${snippet ? `: ${snippet}` : ''}`,
      details: null,
      headers,
      body: text,
      method,
      path,
      now,
    });
  }
}

function isErrorBody(value: unknown): value is { error: true; name: string; message: string; details?: unknown } {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.error === true && typeof v.name === 'string' && typeof v.message === 'string';
}

function requestIdOf(details: unknown): string | null {
  if (typeof details === 'object' && details !== null && typeof (details as { requestId?: unknown }).requestId === 'string') {
    return (details as { requestId: string }).requestId;
  }
  return null;
}

/**
 * The request got no HTTP answer: the connection was refused, reset or timed out, after every
 * attempt the retry policy allowed. `sent` tells whether the request may have reached the
 * server (false only when the connection was never made, e.g. `ECONNREFUSED`): a create that
 * may have been sent is safe to retry only with the same `Idempotency-Key`.
 */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  constructor(
    message: string,
    /** `ECONNREFUSED`, `ECONNRESET`, `ETIMEDOUT` (our own timeout), `UND_ERR_SOCKET`, … */
    readonly code: string,
    readonly sent: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Thrown by {@link verifyWebhook} when a request does not carry a valid, fresh signature of its body. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    message: string,
    readonly reason: 'missing_header' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature' | 'invalid_body',
  ) {
    super(message);
  }
}
