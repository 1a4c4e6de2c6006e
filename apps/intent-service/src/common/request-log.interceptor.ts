import { Inject, Injectable, Logger, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { REQUEST_ID_HEADER } from '@tradeinfra/contracts';
import { tap, type Observable } from 'rxjs';
import { ENV, type IntentServiceEnv } from '../config/env.js';

/** With LOG_REQUESTS, one log line per NATS request, carrying the gateway's x-request-id. */
@Injectable()
export class RequestLogInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Request');

  constructor(@Inject(ENV) private readonly env: IntentServiceEnv) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = context.switchToRpc().getContext<unknown>();
    if (!this.env.LOG_REQUESTS || !(ctx instanceof NatsContext)) return next.handle();
    const started = performance.now();
    const subject = ctx.getSubject();
    const requestId = ctx.getHeaders()?.get(REQUEST_ID_HEADER) || '-';
    const done = (outcome: string) =>
      this.logger.log(`${subject} request=${requestId} ${outcome} ${(performance.now() - started).toFixed(1)}ms`);
    return next.handle().pipe(
      tap({
        complete: () => done('ok'),
        error: (err: { name?: string }) => done(`failed:${err?.name ?? 'Error'}`),
      }),
    );
  }
}
