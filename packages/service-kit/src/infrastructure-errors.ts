import { ErrorName, type RpcErrorPayload } from '@tradeinfra/contracts';

/**
 * Errors that are about the infrastructure, not the request: the database or NATS failed (see
 * docs/design/infrastructure-errors.md). Both error filters (the services' and the gateway's) answer
 * them 503 ServiceUnavailable (with Retry-After at the gateway) or 504 Timeout, never 500, and
 * with a message that names no database, role, host or statement.
 */
export interface InfrastructureFailure {
  dependency: 'database' | 'nats';
  name: typeof ErrorName.ServiceUnavailable | typeof ErrorName.Timeout;
  /** What identifies the failure in the log: a SQLSTATE, a socket code or an error class. */
  code: string;
}

/**
 * SQLSTATEs that say the database cannot serve anyone right now: classes 08, 28, 53, 57, 58 and
 * 3D000, 25006 (a standby after a failover), 25P03 (docs/design/code-notes.md#unavailable-sqlstates).
 */
const UNAVAILABLE_SQLSTATE = /^(?:08|28|53|57|58)[0-9A-Z]{3}$|^3D000$|^25006$|^25P03$/;

/** Socket errors on the way to the database (pg raises them as they are). */
const UNAVAILABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/** pg's and TypeORM's own words for a connection that is gone or was never made. */
const UNAVAILABLE_DRIVER_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end/i;
const UNAVAILABLE_DRIVER_CLASS = new Set(['CannotExecuteNotConnectedError', 'ConnectionIsNotSetError']);

/** nats.js (and service-kit's request) errors meaning no service could be reached, by class name (robust to two copies of the library). */
const NATS_UNAVAILABLE = new Set([
  'NoResponders',
  'NoRespondersError',
  'ClosedConnectionError',
  'DrainingConnectionError',
  'ConnectionError',
  'JetStreamNotEnabled',
]);

/** The infrastructure failure `err` is, or null when it is anything else (a bug, a request's fault). */
export function infrastructureFailure(err: unknown): InfrastructureFailure | null {
  if (err === null || typeof err !== 'object') return null;
  const e = err as { name?: unknown; code?: unknown; message?: unknown; kind?: unknown; driverError?: { code?: unknown }; isNoResponders?: () => boolean };
  const name = typeof e.name === 'string' ? e.name : '';
  const code = typeof e.driverError?.code === 'string' ? e.driverError.code : typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const database = (c: string): InfrastructureFailure => ({ dependency: 'database', name: ErrorName.ServiceUnavailable, code: c });
  const nats = (n: InfrastructureFailure['name'], c: string): InfrastructureFailure => ({ dependency: 'nats', name: n, code: c });

  if (name === 'NatsRequestFailed') {
    if (e.kind === 'timeout') return nats(ErrorName.Timeout, 'timeout');
    if (e.kind === 'no_responders' || e.kind === 'transport') return nats(ErrorName.ServiceUnavailable, String(e.kind));
    return null;
  }
  if (NATS_UNAVAILABLE.has(name)) return nats(ErrorName.ServiceUnavailable, name);
  if (name === 'RequestError' && e.isNoResponders?.()) return nats(ErrorName.ServiceUnavailable, 'NoResponders');
  if (name === 'TimeoutError') return nats(ErrorName.Timeout, name);
  if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code)) return database(code);
  if (UNAVAILABLE_DRIVER_CLASS.has(name)) return database(name);
  if (UNAVAILABLE_DRIVER_MESSAGE.test(message)) return database('connection');
  return null;
}

/** The error a caller gets for `failure`: the spec's name, a message without internals, no details. */
export function infrastructureErrorPayload(failure: InfrastructureFailure): RpcErrorPayload {
  const message =
    failure.name === ErrorName.Timeout
      ? 'A service this request needs did not answer in time'
      : failure.dependency === 'database'
        ? 'The database is unavailable; retry shortly'
        : 'A service this request needs is unavailable; retry shortly';
  return { name: failure.name, message, details: null };
}

/** True when `err` is an infrastructure failure of the database (kept for callers that only ask that). */
export function isDatabaseUnavailable(err: unknown): boolean {
  return infrastructureFailure(err)?.dependency === 'database';
}
