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
  const h = natsHeaders();
  h.set(REQUEST_ID_HEADER, options.requestId ?? randomUUID());
  const packet = encodeRpcRequest(subject, data, randomUUID());
  const size = Buffer.byteLength(packet) + NATS_HEADERS_BYTES;
  if (options.maxPayload !== undefined && size > options.maxPayload) {
    throw new NatsRequestFailed('too_large', `${size} bytes, more than the server's max_payload ${options.maxPayload}`, { size, limit: options.maxPayload });
  }
  let raw: string;
  try {
    raw = (await nc.request(subject, packet, { timeout: options.timeoutMs, headers: h })).string();
  } catch (err) {
    if (err instanceof errors.NoRespondersError || (err instanceof errors.RequestError && err.isNoResponders())) {
      throw new NatsRequestFailed('no_responders', `no service answers ${subject}`);
    }
    if (err instanceof errors.TimeoutError || (err as Error).name === 'TimeoutError') {
      throw new NatsRequestFailed('timeout', `${subject}: no answer within ${options.timeoutMs} ms`);
    }
    throw new NatsRequestFailed('transport', `${subject}: ${(err as Error).message}`);
  }
  const reply = decodeRpcReply<T>(raw);
  if (!reply.ok) throw new ServiceReplyError(reply.error);
  return reply.value;
}
