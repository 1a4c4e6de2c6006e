import { ErrorName, isRpcErrorPayload, type RpcErrorPayload } from './errors.js';
import { MAX_NATS_JSON_DEPTH, parseJson, stringifyJson } from './json.js';

/**
 * Wire format of request/reply over NATS, as the NestJS NATS transport speaks it: a request
 * is `{pattern, data, id}`; the reply is `{id, response}` or `{id, err}`. Integers are exact at
 * any size (see {@link parseJson}).
 */
export function encodeRpcRequest(subject: string, data: unknown, id: string): string {
  return stringifyJson({ pattern: subject, data, id });
}

export type RpcReply<T> = { ok: true; value: T } | { ok: false; error: RpcErrorPayload };

export function decodeRpcReply<T>(raw: string): RpcReply<T> {
  let packet: { err?: unknown; response?: unknown };
  try {
    packet = parseJson(raw, MAX_NATS_JSON_DEPTH) as typeof packet;
  } catch {
    return { ok: false, error: { name: ErrorName.Internal, message: 'Malformed reply from service', details: null } };
  }
  if (packet.err !== undefined && packet.err !== null) {
    const error = isRpcErrorPayload(packet.err) ? packet.err : { name: ErrorName.Internal, message: 'Internal error', details: null };
    return { ok: false, error };
  }
  return { ok: true, value: packet.response as T };
}
