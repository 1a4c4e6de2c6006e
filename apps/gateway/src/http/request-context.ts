import { randomUUID } from 'node:crypto';
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ErrorName, parseJson as parseExactJson, REQUEST_ID_HEADER } from '@tradeinfra/contracts';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Observable } from 'rxjs';
import { GatewayError, sendError } from './gateway-error.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

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

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Reads a request body of at most `limit` bytes (or `limits[path]`) as raw bytes (413 beyond). It is parsed as
 * JSON only after authentication, by {@link JsonBodyInterceptor}: an unauthenticated caller
 * gets 401 whatever it sent.
 */
export function rawBody(limit: number, limits: Record<string, number> = {}): RequestHandler {
  const readers = new Map<number, RequestHandler>();
  const reader = (bytes: number) => {
    let read = readers.get(bytes);
    if (!read) readers.set(bytes, (read = express.raw({ type: () => true, limit: bytes })));
    return read;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    const bytes = limits[req.path] ?? limit;
    reader(bytes)(req, res, ((err?: { type?: string }) => {
      if (!err) return next();
      if (err.type === 'entity.too.large') {
        sendError(res, new GatewayError(ErrorName.PayloadTooLarge, `Request body is larger than ${bytes} bytes`));
      } else {
        sendError(res, new GatewayError(ErrorName.Validation, `Request body could not be read (${err.type ?? 'unreadable'})`));
      }
    }) as NextFunction);
  };
}

/** Turns the raw body into JSON (runs after the guards): wrong content type or bad JSON → 400. */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
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
  const charset = /charset=([^;]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.trim().toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new GatewayError(ErrorName.Validation, 'Request body must be UTF-8 JSON', [
      { path: 'headers.content-type', message: 'charset must be utf-8' },
    ]);
  }
  try {
    return parseExactJson((req.body as Buffer).toString('utf8'));
  } catch {
    throw new GatewayError(ErrorName.Validation, 'Request body is not valid JSON', [{ path: '', message: 'is not valid JSON' }]);
  }
}
