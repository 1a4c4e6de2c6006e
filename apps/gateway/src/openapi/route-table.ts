import type { ErrorBody } from '@tradeinfra/contracts';
import type { z } from 'zod';
import type { Scope } from '../auth/scopes.js';

/**
 * One route as the OpenAPI document describes it. The document is generated from these entries
 * and the contracts' zod schemas alone (`openapi.ts`): nothing in it is written as JSON Schema.
 */
export interface RouteSpec {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI form: `/v1/intent/{id}`. */
  path: string;
  summary: string;
  description?: string;
  /** The scope the API key needs (`admin` passes every check); null: a public route, no key. */
  scope: Scope | null;
  /**
   * A customer dashboard token is accepted too, as `Authorization: Dashboard TOKEN`: any (`header`),
   * also as `?token=` (`query`), or only a source's token for the source the path names (`source`).
   */
  dashboard?: 'header' | 'query' | 'source';
  /** Path parameters, by name, with the schema the route's ContractPipe checks them with. */
  params?: Record<string, z.ZodType>;
  /** The query schema the route's ContractPipe checks `req.query` with. */
  query?: z.ZodObject;
  /** Takes an optional `Idempotency-Key` header. */
  idempotencyKey?: boolean;
  /** The JSON body; `optional`: may be absent (routes that take none accept `{}`). */
  body?: { schema: z.ZodType; optional?: boolean; example?: unknown };
  /** Answers by status: a JSON body's schema, or another content type's. */
  responses: Record<number, ResponseSpec>;
  /** Error statuses the route can answer, each with the error body (`ErrorBody`). */
  errors: readonly number[];
  /** An example of the route's main error: its status (one of `errors`) and body. */
  errorExample?: { status: number; body: ErrorBody };
}

export interface ResponseSpec {
  description: string;
  /** The body's schema; absent: no body is documented. */
  schema?: z.ZodType;
  /** Default `application/json`. */
  contentType?: string;
  /** Response headers beyond the rate-limit ones, by name: a description and the value's schema. */
  headers?: Record<string, { description: string; schema: z.ZodType }>;
  example?: unknown;
}

/** Errors every `/v1` route can answer: bad input, no or a bad key, no scope, slow client, rate limit, service down or slow. */
export const COMMON_ERRORS = [400, 401, 403, 408, 429, 503, 504] as const;
/** Routes that take a body can also answer 413. */
export const BODY_ERRORS = [...COMMON_ERRORS, 413] as const;
