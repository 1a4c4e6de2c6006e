import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import { ErrorName } from '@tradeinfra/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { GatewayError, sendError } from './gateway-error.js';

export interface BodyLimits {
  /** Largest body in bytes (after decompression), unless `byPath` names the route's own. */
  limit: number;
  byPath?: Record<string, number>;
  /** The whole body must arrive within this many ms of the headers. */
  timeoutMs: number;
}

/**
 * Reads the request body as raw bytes, bounded in size (413) and in time (408), decoding gzip,
 * deflate and br, without parsing it: JSON is parsed only after authentication
 * (`JsonBodyInterceptor`). What is left of a refused body is dropped (docs/design/code-notes.md#raw-body).
 */
export function rawBody(limits: BodyLimits): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const chunked = req.headers['transfer-encoding'] !== undefined;
    const declared = req.headers['content-length'];
    if (!chunked && (declared === undefined || Number(declared) === 0)) return next();
    const limit = limits.byPath?.[req.path] ?? limits.limit;
    if (declared !== undefined && Number(declared) > limit) {
      return refuse(req, res, tooLarge(limit), limits.timeoutMs);
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    const decoder = encoding === 'identity' ? null : decoderFor(encoding);
    if (encoding !== 'identity') {
      if (!decoder) {
        return refuse(
          req,
          res,
          new GatewayError(ErrorName.Validation, `Content-Encoding ${encoding.slice(0, 32)} is not supported (use gzip, deflate, br or none)`, [
            { path: 'headers.content-encoding', message: 'must be gzip, deflate, br or identity' },
          ]),
          limits.timeoutMs,
        );
      }
    }
    const source: Readable = decoder ? req.pipe(decoder) : req;

    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: GatewayError | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      source.removeListener('data', onData);
      if (decoder) req.unpipe(decoder);
      if (error) return refuse(req, res, error, limits.timeoutMs);
      if (size > 0) req.body = Buffer.concat(chunks, size); // an empty chunked body is no body
      next();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    const timer = setTimeout(
      () => finish(new GatewayError(ErrorName.RequestTimeout, `The request body did not arrive within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    source.on('data', onData);
    source.once('end', () => finish(null));
    source.once('error', () =>
      finish(new GatewayError(ErrorName.Validation, 'Request body could not be read', [{ path: '', message: `is not valid ${encoding} data` }])),
    );
    // The client went away mid-body: nobody to answer; stop waiting.
    req.once('close', () => {
      if (!req.complete) finish(new GatewayError(ErrorName.Validation, 'Request body was cut short'));
    });
  };
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError(ErrorName.PayloadTooLarge, `Request body is larger than ${limit} bytes`);
}

function decoderFor(encoding: string): Transform | null {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return null;
  }
}

/**
 * Answers now, without the body. A request timeout closes the connection. Otherwise the client
 * may still be sending: the rest of the body is read and dropped, so that it gets to read the
 * answer and can reuse the connection; a body that does not end within `drainMs` (a declared
 * length that never comes, an endless chunked body) has its connection closed.
 */
function refuse(req: Request, res: Response, error: GatewayError, drainMs: number): void {
  if (res.headersSent || res.destroyed) return;
  if (error.name === ErrorName.RequestTimeout) res.setHeader('connection', 'close');
  sendError(res, error);
  if (req.complete || error.name === ErrorName.RequestTimeout) return;
  const socket = req.socket;
  const cut = setTimeout(() => socket.destroy(), drainMs);
  cut.unref();
  req.once('end', () => clearTimeout(cut));
  socket.once('close', () => clearTimeout(cut));
  req.resume();
}
