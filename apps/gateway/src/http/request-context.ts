import { randomUUID } from 'node:crypto';
import { ErrorName, REQUEST_ID_HEADER } from '@tradeinfra/contracts';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
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

/**
 * JSON bodies only, at most `limit` bytes: a larger body is 413, malformed JSON 400, another
 * content type on a body-carrying request 400, all as the spec's error object.
 */
export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: false, type: ['application/json', 'application/*+json'] });
  return (req: Request, res: Response, next: NextFunction) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (hasBody && !req.is(['application/json', 'application/*+json'])) {
      sendError(res, new GatewayError(ErrorName.Validation, 'Content-Type must be application/json', [
        { path: 'headers.content-type', message: 'must be application/json' },
      ]));
      return;
    }
    parse(req, res, (err?: { type?: string; message?: string }) => {
      if (!err) return next();
      if (err.type === 'entity.too.large') {
        sendError(res, new GatewayError(ErrorName.PayloadTooLarge, `Request body is larger than ${limit} bytes`));
      } else if (err.type === 'entity.parse.failed') {
        sendError(res, new GatewayError(ErrorName.Validation, 'Request body is not valid JSON', [{ path: '', message: 'is not valid JSON' }]));
      } else {
        sendError(res, new GatewayError(ErrorName.Validation, `Request body could not be read: ${err.type ?? 'unreadable'}`));
      }
    });
  };
}
