import type { IntentEvent } from '@tradeinfra/contracts';
import { abortReason, backoffDelay, sleep, systemClock, type BackoffOptions } from './backoff.js';
import { ApiError, ConnectionError } from './errors.js';
import { SseParser } from './sse.js';
import { errorCode, type Transport } from './transport.js';

export interface EventStreamOptions {
  /** Stops the stream: the iteration ends (`done`), the connection is closed. */
  signal?: AbortSignal;
  /** Reconnect when the connection drops or fails (default true). */
  reconnect?: boolean;
  /** Consecutive failed connections before the iteration throws the last error. Default: unlimited. */
  maxReconnectAttempts?: number;
  /** Backoff between reconnections (default 500 ms doubling up to 30 s, with jitter). */
  backoff?: BackoffOptions;
  /**
   * Nothing received (no event, no heartbeat comment) for this long, ms: the connection is taken
   * for dead and replaced. The gateway sends a comment every 15 s. Default 45,000.
   */
  idleTimeoutMs?: number;
  /**
   * Called each time the stream is (re)connected. The stream is live only: events that happened
   * while it was disconnected are not replayed, so on `reconnected: true` reload the state you
   * show with `client.intents.search()`.
   */
  onOpen?: (info: { reconnected: boolean; connection: number }) => void;
  /** Called when a connection ends or fails, before waiting `delayMs` to reconnect. */
  onDisconnect?: (info: { error: unknown; delayMs: number }) => void;
  /** Called for every comment line (the gateway's `: ping` heartbeats). */
  onHeartbeat?: (comment: string) => void;
}

/**
 * The tenant's intent events (`GET /v1/intents/events`), as an async iterator that reconnects
 * with backoff when the connection drops. End it with `break` in a `for await`, `return()`,
 * `close()` or the `signal`.
 */
export class IntentEventStream implements AsyncIterableIterator<IntentEvent> {
  private readonly controller = new AbortController();
  private readonly generator: AsyncGenerator<IntentEvent, void, undefined>;

  constructor(transport: Transport, options: EventStreamOptions = {}) {
    const signal = options.signal ? AbortSignal.any([options.signal, this.controller.signal]) : this.controller.signal;
    this.generator = run(transport, options, signal);
  }

  next(): Promise<IteratorResult<IntentEvent, void>> {
    return this.generator.next();
  }

  async return(): Promise<IteratorResult<IntentEvent, void>> {
    this.close();
    return this.generator.return(undefined);
  }

  /** Closes the connection; a pending `next()` resolves `done`. */
  close(): void {
    this.controller.abort();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

const STREAM_BACKOFF: BackoffOptions = { baseDelayMs: 500, maxDelayMs: 30_000 };
/** A connection that lived this long counts as a success: the next drop starts the backoff over. */
const HEALTHY_CONNECTION_MS = 10_000;

async function* run(transport: Transport, options: EventStreamOptions, signal: AbortSignal): AsyncGenerator<IntentEvent, void, undefined> {
  const reconnect = options.reconnect ?? true;
  const maxFailures = options.maxReconnectAttempts ?? Number.POSITIVE_INFINITY;
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  const parser = new SseParser((comment) => options.onHeartbeat?.(comment));
  let failures = 0;
  let connections = 0;
  while (!signal.aborted) {
    const connection = new AbortController();
    const onAbort = () => connection.abort(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    let error: unknown = null;
    let retryAfterMs: number | null = null;
    const openedAt = performance.now();
    try {
      const res = await open(transport, parser.lastId, connection);
      connections++;
      options.onOpen?.({ reconnected: connections > 1, connection: connections });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let idle: NodeJS.Timeout | undefined;
      const armIdle = () => {
        clearTimeout(idle);
        idle = setTimeout(() => connection.abort(new ConnectionError(`no data on the event stream for ${idleTimeoutMs} ms`, 'ETIMEDOUT', true)), idleTimeoutMs);
      };
      armIdle();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          armIdle();
          for (const message of parser.push(decoder.decode(value, { stream: true }))) {
            const event = toIntentEvent(message.data);
            if (event) yield event;
          }
        }
        error = new ConnectionError('the event stream ended', 'ESTREAMCLOSED', true);
      } finally {
        clearTimeout(idle);
        reader.cancel().catch(() => undefined);
      }
    } catch (err) {
      if (signal.aborted) return;
      error = connection.signal.aborted && connection.signal.reason instanceof ConnectionError ? connection.signal.reason : err;
      if (error instanceof ApiError) {
        if (error.status !== 429 && error.status !== 503 && error.status !== 502 && error.status !== 504) throw error; // 401, 403, …: reconnecting will not help
        retryAfterMs = error.retryAfterMs;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      connection.abort();
    }
    if (signal.aborted) return;
    parser.reset();
    if (performance.now() - openedAt >= HEALTHY_CONNECTION_MS) failures = 0;
    failures++;
    if (!reconnect || failures > maxFailures) throw asError(error);
    const backoff = { ...STREAM_BACKOFF, ...options.backoff };
    const delayMs = Math.max(retryAfterMs ?? 0, parser.retryMs ?? 0, backoffDelay(failures, backoff));
    options.onDisconnect?.({ error, delayMs });
    try {
      await sleep(delayMs, signal);
    } catch {
      return; // stopped while waiting
    }
  }
}

async function open(transport: Transport, lastEventId: string, connection: AbortController): Promise<Response> {
  const path = '/v1/intents/events';
  const headers = transport.headers({}, { accept: 'text/event-stream', 'cache-control': 'no-cache' });
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const timeoutMs = transport.timeoutMs;
  const timer = setTimeout(() => connection.abort(new ConnectionError(`GET ${path}: no answer within ${timeoutMs} ms`, 'ETIMEDOUT', true)), timeoutMs);
  let res: Response;
  try {
    res = await transport.fetch(transport.url(path), { method: 'GET', headers, signal: connection.signal });
  } catch (err) {
    if (connection.signal.reason instanceof ConnectionError) throw connection.signal.reason;
    const code = errorCode(err);
    throw new ConnectionError(`GET ${path}: ${code}`, code, code !== 'ECONNREFUSED', { cause: err });
  } finally {
    clearTimeout(timer);
  }
  if (!res.ok) throw ApiError.fromResponse(res.status, res.headers, await res.text(), 'GET', path, (transport.options.now ?? systemClock)());
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream') || !res.body) {
    await res.body?.cancel();
    throw new ConnectionError(`GET ${path} answered ${type || 'no content type'}, not text/event-stream`, 'EBADRESPONSE', true);
  }
  return res;
}

function toIntentEvent(data: string): IntentEvent | null {
  try {
    const event = JSON.parse(data) as IntentEvent;
    return typeof event === 'object' && event !== null && typeof event.id === 'string' && typeof event.type === 'string' ? event : null;
  } catch {
    return null;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new ConnectionError(String(error), 'UNKNOWN', true);
}
