import { randomUUID } from 'node:crypto';
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ContractValidationError, ErrorName, JsonTooDeepError, parseJson as parseExactJson, REQUEST_ID_HEADER } from '@tradeinfra/contracts';
import type { Request, RequestHandler } from 'express';
import type { Observable } from 'rxjs';
import { GatewayError } from './gateway-error.js';
import { jsonTextIssues, lenientText, queryIssues, utf8 } from './input-text.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Refuses an `Idempotency-Key` header that is not 1 to 255 printable ASCII characters (400). */
export function checkIdempotencyKey(idempotencyKey: string | undefined): void {
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw new GatewayError(ErrorName.Validation, 'Idempotency-Key must be 1 to 255 printable ASCII characters', [
      { path: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
}

/** The request id: the client's `x-request-id` when it is sane, else a new UUID. */
export function requestIdOf(req: Request): string {
  return (req as Request & { id?: string }).id ?? 'unknown';
}

/** Sets the request id on the request and on every response. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.headers[REQUEST_ID_HEADER];
    const id = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    (req as Request & { id: string }).id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}

/**
 * Runs after the guards, before the route's pipes: refuses text that is not storable anywhere
 * in the query string or the body (see `input-text.ts`), then turns the raw body into JSON
 * (wrong content type, bad JSON, or nesting deeper than MAX_JSON_DEPTH → 400).
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const queryProblems = queryIssues(req.originalUrl);
    if (queryProblems.length > 0) throw new ContractValidationError(queryProblems);
    if (Buffer.isBuffer(req.body)) req.body = parseJson(req);
    return next.handle();
  }
}

function parseJson(req: Request): unknown {
  if (!req.is(['application/json', 'application/*+json'])) {
    throw new GatewayError(ErrorName.Validation, 'Content-Type must be application/json', [
      { path: 'headers.content-type', message: 'must be application/json' },
    ]);
  }
  const charset = /charset=([^;]+)/i
    .exec(req.headers['content-type'] ?? '')?.[1]
    ?.trim()
    .toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new GatewayError(ErrorName.Validation, 'Request body must be UTF-8 JSON', [{ path: 'headers.content-type', message: 'charset must be utf-8' }]);
  }
  const body = req.body as Buffer;
  const text = utf8(body);
  if (text === null) {
    // Name the fields that hold the bytes, when the rest is JSON.
    let fields: ReturnType<typeof jsonTextIssues> = [];
    try {
      fields = jsonTextIssues(parseExactJson(lenientText(body)), '\uFFFD');
    } catch (err) {
      if (err instanceof JsonTooDeepError) throw tooDeep(err);
      // not JSON either
    }
    throw new ContractValidationError(fields.length > 0 ? fields : [{ path: '', message: 'is not valid UTF-8' }]);
  }
  let value: unknown;
  try {
    value = parseExactJson(text);
  } catch (err) {
    if (err instanceof JsonTooDeepError) throw tooDeep(err);
    throw new GatewayError(ErrorName.Validation, 'Request body is not valid JSON', [{ path: '', message: 'is not valid JSON' }]);
  }
  const problems = jsonTextIssues(value);
  if (problems.length > 0) throw new ContractValidationError(problems);
  return value;
}

/** Refused before parsing (MAX_JSON_DEPTH): what recurses over a value (serialisers, schemas) would overflow the stack. */
function tooDeep(err: JsonTooDeepError): GatewayError {
  return new GatewayError(ErrorName.Validation, `Request body nests arrays and objects deeper than ${err.maxDepth} levels`, [
    { path: '', message: `must not nest arrays and objects deeper than ${err.maxDepth} levels` },
  ]);
}
