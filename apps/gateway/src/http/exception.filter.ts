import { Catch, HttpException, HttpStatus, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ContractValidationError, ErrorName } from '@tradeinfra/contracts';
import type { Request, Response } from 'express';
import { describeError, describeFailure, infrastructureErrorPayload, infrastructureFailure } from '@tradeinfra/service-kit';
import { GatewayError, sendError } from './gateway-error.js';
import { requestIdOf } from './request-context.js';

/**
 * Every error of every route becomes the spec's error object with the status of its name.
 * The database or NATS failing is a 503 (Retry-After) or 504 (infrastructureFailure). Unknown errors: 500 with the request id; the log gets the stack, or for a database error its
 * code and message only (never the SQL or its parameters).
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const error = this.toGatewayError(exception, req);
    sendError(res, error);
  }

  private toGatewayError(exception: unknown, req: Request): GatewayError {
    if (exception instanceof GatewayError) return exception;
    if (exception instanceof ContractValidationError) {
      return new GatewayError(ErrorName.Validation, exception.message, exception.issues);
    }
    if (exception instanceof URIError || /^Failed to decode param/.test((exception as Error | null)?.message ?? '')) {
      // A path segment with a malformed %-escape or bytes that are not UTF-8 (`%FF`).
      return new GatewayError(ErrorName.Validation, 'The path is not valid percent-encoded UTF-8', [
        { path: 'path', message: 'is not valid percent-encoded UTF-8' },
      ]);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === HttpStatus.NOT_FOUND) {
        return new GatewayError(ErrorName.NotFound, `No route ${req.method} ${req.path}`);
      }
      if (status === HttpStatus.METHOD_NOT_ALLOWED) return new GatewayError(ErrorName.NotFound, `No route ${req.method} ${req.path}`);
      if (status < 500) return new GatewayError(ErrorName.Validation, exception.message);
    }
    const requestId = requestIdOf(req);
    const failure = infrastructureFailure(exception);
    if (failure) {
      this.logger.warn(`${failure.dependency} unavailable (request ${requestId}): ${describeFailure(exception, failure)}`);
      return GatewayError.from(infrastructureErrorPayload(failure));
    }
    this.logger.error(`unhandled error (request ${requestId}): ${describeError(exception)}`);
    return new GatewayError(ErrorName.Internal, 'Internal error', { requestId });
  }
}
