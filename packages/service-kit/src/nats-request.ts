import { randomUUID } from 'node:crypto';
import { errors, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { decodeRpcReply, encodeRpcRequest, REQUEST_ID_HEADER, type RpcErrorPayload } from '@tradeinfra/contracts';

/** What a NATS request failed on before any service answered it. */
export type NatsRequestFailure = 'no_responders' | 'timeout' | 'too_large' | 'transport';

/** The request did not reach a service, or no answer came: `kind` says which. */
export class NatsRequestFailed extends Error {
  constructor(
    readonly kind: NatsRequestFailure,
    message: string,
    /** For `too_large`: the packet's size and the server's limit, in bytes. */
    readonly size?: { size: number; limit: number },
  ) {
    super(message);
    this.name = 'NatsRequestFailed';
  }
}

/** The service answered with one of its errors (`{name, message, details}`). */
export class ServiceReplyError extends Error {
  constructor(readonly payload: RpcErrorPayload) {
    super(`${payload.name}: ${payload.message}`);
    this.name = 'ServiceReplyError';
  }
}

/** What a request's NATS headers (the request id) add, with room to spare. */
export const NATS_HEADERS_BYTES = 256;

export interface NatsRequestOptions {
  /** Carried as the `x-request-id` header: the services log it with the request. */
  requestId?: string;
  timeoutMs: number;
  /** The server's max_payload: a bigger packet fails `too_large` without being sent. */
  maxPayload?: number;
}

/**
 * One request/reply to a service in the services' envelope (`{pattern, data, id}` with exact
 * JSON), carrying the request id; the service's value, or a ServiceReplyError with its error, or
 * a NatsRequestFailed when no service answered (no responders, timeout, too large, transport).
 */
export async function natsRequest<T>(nc: NatsConnection, subject: string, data: unknown, options: NatsRequestOptions): Promise<T> {
  const { packet, headers } = requestPacket(subject, data, options);
  let raw: string;
  try {
    raw = (await nc.request(subject, packet, { timeout: options.timeoutMs, headers })).string();
  } catch (err) {
    throw transportFailure(err, subject, options.timeoutMs);
  }
  const reply = decodeRpcReply<T>(raw);
  if (!reply.ok) throw new ServiceReplyError(reply.error);
  return reply.value;
}

/**
 * One request a service answers with several values (its handler returns an Observable), in the
 * same envelope and with the same failures as natsRequest: `onValue` gets each value in order and
 * says whether it is the last one; resolves once it is. A service error ends it at once.
 */
export async function natsRequestStream<T>(
  nc: NatsConnection,
  subject: string,
  data: unknown,
  options: NatsRequestOptions,
  onValue: (value: T) => boolean,
): Promise<void> {
  const { packet, headers } = requestPacket(subject, data, options);
  let replies: AsyncIterable<{ string(): string }>;
  try {
    replies = await nc.requestMany(subject, packet, { strategy: 'timer', maxWait: options.timeoutMs, headers });
  } catch (err) {
    throw transportFailure(err, subject, options.timeoutMs);
  }
  try {
    for await (const msg of replies) {
      const reply = decodeRpcReply<T>(msg.string());
      if (!reply.ok) throw new ServiceReplyError(reply.error);
      if (reply.value === undefined) continue; // the stream's end, sent apart from its last value
      if (onValue(reply.value)) return;
    }
  } catch (err) {
    if (err instanceof ServiceReplyError) throw err;
    throw transportFailure(err, subject, options.timeoutMs);
  }
  throw new NatsRequestFailed('timeout', `${subject}: no last answer within ${options.timeoutMs} ms`);
}

function requestPacket(subject: string, data: unknown, options: NatsRequestOptions): { packet: string; headers: ReturnType<typeof natsHeaders> } {
  const headers = natsHeaders();
  headers.set(REQUEST_ID_HEADER, options.requestId ?? randomUUID());
  const packet = encodeRpcRequest(subject, data, randomUUID());
  const size = Buffer.byteLength(packet) + NATS_HEADERS_BYTES;
  if (options.maxPayload !== undefined && size > options.maxPayload) {
    throw new NatsRequestFailed('too_large', `${size} bytes, more than the server's max_payload ${options.maxPayload}`, { size, limit: options.maxPayload });
  }
  return { packet, headers };
}

function transportFailure(err: unknown, subject: string, timeoutMs: number): NatsRequestFailed {
  if (err instanceof errors.NoRespondersError || (err instanceof errors.RequestError && err.isNoResponders())) {
    return new NatsRequestFailed('no_responders', `no service answers ${subject}`);
  }
  if (err instanceof errors.TimeoutError || (err as Error).name === 'TimeoutError') {
    return new NatsRequestFailed('timeout', `${subject}: no answer within ${timeoutMs} ms`);
  }
  return new NatsRequestFailed('transport', `${subject}: ${(err as Error).message}`);
}
