import { Catch, Logger, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { ContractValidationError, ErrorName, REQUEST_ID_HEADER, type RpcErrorPayload } from '@tradeinfra/contracts';
import { throwError, type Observable } from 'rxjs';
import { IntentError } from '../intents/intents.errors.js';

/**
 * Serialises every failure of a NATS handler as `{name, message, details}`. Unknown errors are
 * logged with the request id and answered as InternalError without internals.
 */
@Catch()
export class AllRpcExceptionsFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('Rpc');

  catch(exception: unknown, host: ArgumentsHost): Observable<RpcErrorPayload> {
    return throwError(() => this.toPayload(exception, host));
  }

  private toPayload(exception: unknown, host: ArgumentsHost): RpcErrorPayload {
    if (exception instanceof ContractValidationError || exception instanceof IntentError) {
      return exception.toPayload();
    }
    const ctx = host.switchToRpc().getContext<unknown>();
    const requestId = ctx instanceof NatsContext ? ctx.getHeaders()?.get(REQUEST_ID_HEADER) : undefined;
    const subject = ctx instanceof NatsContext ? ctx.getSubject() : 'unknown';
    this.logger.error(
      `unhandled error on ${subject} (request ${requestId || '-'}): ${(exception as Error)?.stack ?? String(exception)}`,
    );
    return { name: ErrorName.Internal, message: 'Internal error', details: { requestId: requestId || null } };
  }
}
