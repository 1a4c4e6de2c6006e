import { ContractValidationError, JsonRpcCode, JsonRpcRequestSchema, parseInput, stringifyJson, type JsonRpcRequest } from '@tradeinfra/contracts';
import type { z } from 'zod';

/** A JSON-RPC error answer to one request (a refused transaction or bundle, bad params, an unknown method). */
export class RpcFault extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A request's params parsed with `schema`; a failure is a -32602 naming the fields. */
export function params<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  try {
    return parseInput(schema, value);
  } catch (err) {
    if (!(err instanceof ContractValidationError)) throw err;
    const issues = err.issues.map((i) => ({ path: i.path ? `params.${i.path}` : 'params', message: i.message }));
    throw new RpcFault(JsonRpcCode.InvalidParams, `Invalid params: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  }
}

type Id = string | number | bigint | null;

/**
 * Answers a JSON-RPC body (one request or a batch) with `handle` per request, in order; a request
 * that fails gets its error object, the others their results. The reply is exact JSON text.
 */
export async function answerJsonRpc(body: unknown, handle: (request: JsonRpcRequest) => Promise<unknown>): Promise<string> {
  const one = async (item: unknown): Promise<object> => {
    const id = idOf(item);
    let request: JsonRpcRequest;
    try {
      request = parseInput(JsonRpcRequestSchema, item);
    } catch (err) {
      const message = err instanceof ContractValidationError ? err.message : 'Invalid request';
      return { jsonrpc: '2.0', id, error: { code: JsonRpcCode.InvalidRequest, message: `Invalid request: ${message}` } };
    }
    try {
      return { jsonrpc: '2.0', id, result: (await handle(request)) ?? null };
    } catch (err) {
      if (err instanceof RpcFault)
        return { jsonrpc: '2.0', id, error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) } };
      throw err;
    }
  };
  if (Array.isArray(body)) return stringifyJson(await Promise.all(body.map(one)));
  return stringifyJson(await one(body));
}

function idOf(item: unknown): Id {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' || typeof id === 'bigint' ? id : null;
}

/** The request's params as a positional array (an object is its first and only param). */
export function positional(request: JsonRpcRequest): unknown[] {
  if (request.params === undefined) return [];
  return Array.isArray(request.params) ? request.params : [request.params];
}
