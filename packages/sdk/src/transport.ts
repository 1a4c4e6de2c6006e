import { randomUUID } from 'node:crypto';
import { abortReason, retryDelay, sleep, systemClock, type BackoffOptions } from './backoff.js';
import { ApiError, ConnectionError } from './errors.js';
import { parseExact, stringifyBody } from './json.js';

export const SDK_VERSION = '0.1.0';

export interface ClientOptions {
  /** Where the gateway answers, e.g. `https://api.example.com` or `http://localhost:3000`. */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <key>`. Not needed for `health()` and `ready()`. */
  apiKey?: string;
  /** Per attempt, ms, from sending to the whole answer read. Default 30,000. */
  timeoutMs?: number;
  /** Attempts in all for a retryable failure (1 = no retries). Default 4. */
  maxAttempts?: number;
  /** Exponential backoff between attempts (with jitter) when the server gave no `Retry-After`. */
  backoff?: BackoffOptions;
  /** A `Retry-After` longer than this (ms) is not waited for: the error is thrown. Default 60,000. */
  maxRetryAfterMs?: number;
  /** The fetch implementation. Default: the global `fetch` (Node 20's undici). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Called before each retry (for logs and metrics). */
  onRetry?: (info: RetryInfo) => void;
  /** The wall clock, ms since the epoch (tests move it). Default: the system clock. */
  now?: () => number;
}

export interface RetryInfo {
  method: string;
  path: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt, ms. */
  delayMs: number;
  /** The HTTP status that failed, or null for a connection error. */
  status: number | null;
  /** The `Retry-After` the server sent, ms, or null. */
  retryAfterMs: number | null;
  error: ApiError | ConnectionError;
  /** The `Idempotency-Key` every attempt of this request carries, if any. */
  idempotencyKey: string | null;
}

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call (every attempt and the waits between them); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxAttempts` for this call. */
  maxAttempts?: number;
  /** Sent as `x-request-id` (`[A-Za-z0-9._:-]{1,128}`): the gateway and every service log it. */
  requestId?: string;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

/** Options of a create (`POST /v1/intent`, `POST /v1/wallet/intent`). */
export interface CreateOptions extends RequestOptions {
  /**
   * The `Idempotency-Key` (1..255 printable ASCII). Default: a new UUID per call, reused by every
   * retry of that call, so a retried create never makes a second intent. Pass your own to make a
   * create safe across process restarts too (the same key and body within 24 h return the same intent).
   */
  idempotencyKey?: string;
}

/** A page of a paged listing and the cursor of the next one (`x-next-cursor`), null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Call extends RequestOptions {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined | null>;
  body?: unknown;
  /**
   * Whether sending it twice is harmless (reads, simulations, creates with an Idempotency-Key):
   * only such calls are retried after a failure that may have reached the server (a reset
   * connection, a timeout, a 504). 429 and 503 are retried for every call: the gateway answers
   * them before anything is applied; so are connections refused (nothing was sent).
   */
  idempotent: boolean;
  idempotencyKey?: string | null;
  /** Parse money exactly (the payout routes' numbers become decimal strings). */
  exact?: boolean;
  /** Statuses returned as they are instead of thrown (e.g. 503 of `/ready`). */
  accept?: readonly number[];
  /** Do not send the API key (public routes). */
  anonymous?: boolean;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  data: T;
}

/** Connection-level codes that mean the request never left: retrying it is always safe. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

/** Statuses answered before anything was applied: retried for every request, honouring Retry-After. */
const RETRY_ALWAYS = new Set([429, 503]);
/** Statuses after which the request may have been applied: retried only when that is harmless. */
const RETRY_IDEMPOTENT = new Set([504]);

export class Transport {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(readonly options: ClientOptions) {
    if (!options?.baseUrl) throw new TypeError('TradeInfraClient: baseUrl is required');
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`TradeInfraClient: baseUrl must be http(s), got ${url.protocol}`);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('TradeInfraClient: no fetch implementation (Node 20 has one; pass options.fetch)');
    this.fetchImpl = f;
  }

  get timeoutMs(): number {
    return this.options.timeoutMs ?? 30_000;
  }

  url(path: string, query?: Call['query']): string {
    let url = this.baseUrl + path;
    if (query) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.append(k, String(v));
      const qs = params.toString();
      if (qs) url += `?${qs}`;
    }
    return url;
  }

  headers(call: Pick<Call, 'headers' | 'requestId' | 'anonymous'>, extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = {
      'user-agent': `tradeinfra-sdk/${SDK_VERSION}`,
      accept: 'application/json',
      ...this.options.headers,
      ...extra,
      ...call.headers,
    };
    if (this.options.apiKey && !call.anonymous) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (call.requestId) headers['x-request-id'] = call.requestId;
    return headers;
  }

  async fetch(url: string, init: RequestInit): Promise<Response> {
    return this.fetchImpl(url, init);
  }

  /** One API call, with the retry policy; resolves with the parsed answer or throws {@link ApiError} / {@link ConnectionError}. */
  async request<T>(call: Call): Promise<Answer<T>> {
    const maxAttempts = Math.max(1, call.maxAttempts ?? this.options.maxAttempts ?? 4);
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    const body = call.body === undefined ? undefined : stringifyBody(call.body);
    const extra: Record<string, string> = {};
    if (body !== undefined) extra['content-type'] = 'application/json';
    if (call.idempotencyKey) extra['idempotency-key'] = call.idempotencyKey;
    const headers = this.headers(call, extra);
    const url = this.url(call.path, call.query);
    for (let attempt = 1; ; attempt++) {
      if (call.signal?.aborted) throw abortReason(call.signal);
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const onAbort = () => controller.abort(abortReason(call.signal!));
      call.signal?.addEventListener('abort', onAbort, { once: true });
      let failure: ApiError | ConnectionError;
      try {
        const res = await this.fetchImpl(url, { method: call.method, headers, body, signal: controller.signal, redirect: 'manual' });
        const text = await res.text();
        if ((res.status >= 200 && res.status < 300) || call.accept?.includes(res.status)) {
          const data = (text === '' ? undefined : call.exact ? parseExact(text) : JSON.parse(text)) as T;
          return { status: res.status, headers: res.headers, data };
        }
        failure = ApiError.fromResponse(res.status, res.headers, text, call.method, call.path, (this.options.now ?? systemClock)());
      } catch (err) {
        if (call.signal?.aborted) throw abortReason(call.signal);
        if (err instanceof SyntaxError)
          throw new ConnectionError(`${call.method} ${call.path}: the answer is not JSON (${err.message})`, 'EBADRESPONSE', true, { cause: err });
        failure = connectionError(err, call, timedOut, timeoutMs);
      } finally {
        clearTimeout(timer);
        call.signal?.removeEventListener('abort', onAbort);
      }
      if (attempt >= maxAttempts || !retryable(failure, call.idempotent)) throw failure;
      const retryAfterMs = failure instanceof ApiError ? failure.retryAfterMs : null;
      if (retryAfterMs !== null && retryAfterMs > (this.options.maxRetryAfterMs ?? 60_000)) throw failure;
      const delayMs = retryDelay(attempt, retryAfterMs, this.options.backoff);
      this.options.onRetry?.({
        method: call.method,
        path: call.path,
        attempt,
        delayMs,
        status: failure instanceof ApiError ? failure.status : null,
        retryAfterMs,
        error: failure,
        idempotencyKey: call.idempotencyKey ?? null,
      });
      await sleep(delayMs, call.signal);
    }
  }
}

export function newIdempotencyKey(): string {
  return randomUUID();
}

function retryable(failure: ApiError | ConnectionError, idempotent: boolean): boolean {
  if (failure instanceof ConnectionError) return !failure.sent || idempotent;
  return RETRY_ALWAYS.has(failure.status) || (idempotent && RETRY_IDEMPOTENT.has(failure.status));
}

/** The error code of a failed fetch: undici puts the socket's code on `cause` (or on an AggregateError's errors). */
export function errorCode(err: unknown): string {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const e = current as { code?: unknown; cause?: unknown; errors?: unknown[] };
    if (typeof e.code === 'string' && e.code !== 'ABORT_ERR') return e.code;
    if (Array.isArray(e.errors) && e.errors.length > 0) {
      const inner = errorCode(e.errors[0]);
      if (inner !== 'UNKNOWN') return inner;
    }
    current = e.cause;
  }
  return 'UNKNOWN';
}

function connectionError(err: unknown, call: Pick<Call, 'method' | 'path'>, timedOut: boolean, timeoutMs: number): ConnectionError {
  if (timedOut) return new ConnectionError(`${call.method} ${call.path}: no answer within ${timeoutMs} ms`, 'ETIMEDOUT', true, { cause: err });
  const code = errorCode(err);
  const detail = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
  return new ConnectionError(`${call.method} ${call.path}: ${code === 'UNKNOWN' ? '' : `${code}: `}${detail}`, code, !NOT_SENT.has(code), { cause: err });
}
