import { z } from 'zod';

/**
 * Error names shared by every service and the gateway. A service fails a request by
 * throwing (over NATS) an {@link RpcErrorPayload}; the gateway maps `name` to an HTTP status
 * and answers with {@link ErrorBody}, the spec's error object.
 */
export const ErrorName = {
  Validation: 'ValidationError',
  /** Rule failures the spec shows with the plain name `Error` (e.g. a simulation nonce mismatch). */
  Rule: 'Error',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  Conflict: 'Conflict',
  PayloadTooLarge: 'PayloadTooLarge',
  /** The request (its headers or body) did not arrive within the gateway's time limit. */
  RequestTimeout: 'RequestTimeout',
  RateLimited: 'RateLimited',
  Upstream: 'UpstreamError',
  ServiceUnavailable: 'ServiceUnavailable',
  Timeout: 'Timeout',
  /** Valid, but beyond what the service does for one request (`details.reason` says what). */
  Unprocessable: 'Unprocessable',
  Internal: 'InternalError',
} as const;
export type ErrorName = (typeof ErrorName)[keyof typeof ErrorName];

/** One problem with one field of an input; `path` is dotted (`addresses.3`, `headers.idempotency-key`). */
export const FieldIssueSchema = z.strictObject({ path: z.string(), message: z.string() });
export type FieldIssue = z.output<typeof FieldIssueSchema>;

/** What a service replies with when it fails a request. */
export interface RpcErrorPayload {
  name: ErrorName;
  message: string;
  details: unknown;
}

/** The spec's error object: the body of every non-2xx HTTP answer. */
export const ErrorBodySchema = z.strictObject({
  error: z.literal(true),
  name: z.enum(ErrorName),
  message: z.string(),
  details: z.unknown().meta({
    description: 'ValidationError: a list of {path, message}, one per field (FieldIssue); otherwise null or an object (e.g. `{reason}`)',
  }),
});
export type ErrorBody = z.output<typeof ErrorBodySchema>;

/** `details` of a ValidationError: one issue per field. */
export const FieldIssuesSchema = z.array(FieldIssueSchema);

/** Thrown by {@link parseInput} when an input does not match its contract. */
export class ContractValidationError extends Error {
  override readonly name = ErrorName.Validation;
  constructor(readonly issues: FieldIssue[]) {
    super(summarize(issues));
  }

  toPayload(): RpcErrorPayload {
    return { name: ErrorName.Validation, message: this.message, details: this.issues };
  }
}

function summarize(issues: FieldIssue[]): string {
  const first = issues[0];
  if (!first) return 'Invalid input';
  const head = first.path ? `${first.path}: ${first.message}` : first.message;
  return issues.length > 1 ? `${head} (and ${issues.length - 1} more)` : head;
}

export function isRpcErrorPayload(value: unknown): value is RpcErrorPayload {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.name === 'string' && typeof v.message === 'string' && 'details' in v;
}
