import {
  DashboardUrlSchema,
  LivenessSchema,
  ReadinessSchema,
  ServicesHealthSchema,
  SimulateRequestSchema,
  SimulationResultSchema,
} from '@tradeinfra/contracts';
import { z } from 'zod';
import * as ex from './examples.js';
import { BODY_ERRORS, COMMON_ERRORS, type RouteSpec } from './route-table.js';

const retryAfter = { 'Retry-After': { description: 'Seconds to wait before retrying', schema: z.number().int().min(0) } };
const noStore = { 'cache-control': { description: 'Never cached', schema: z.literal('no-store') } };
const page = (description: string) => ({ description, contentType: 'text/html', schema: z.string() });

/** Simulation, the tenant's dashboard URL, and the routes without a key: health, metrics, this document and its pages. */
export const OTHER_ROUTES: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/simulate',
    summary: 'Simulate a bundle of calls',
    description:
      'Runs the calls in order on one shared state on top of the state after block `blockNumber` (or `block_number`; latest when omitted), ' +
      "each as a transaction with gas price 0 (the sender's nonce increments, no fee is charged), with the block environment eth_call uses at that block (BASEFEE reads 0), " +
      'under the EVM rules the chain ran at that block (see docs/design/fork-schedule.md; HARDFORK_<chainId> fixes one). ' +
      "The bundle's overrides apply before the first call, a call's own `overrides` just before it. A call's gas is `gas` or `gasLimit` (both and different: 400); " +
      "it defaults to the block gas limit capped by the fork's transaction gas cap (2^24 since Osaka, EIP-7825); more, or init code above 49,152 bytes (EIP-3860), is a 400 ValidationError. " +
      "A call whose `nonce` differs from its sender's fails the request with 400 `Nonce mismatch. Expected <n>, got <m> on call #<index>` (0-based). " +
      'At most 100 calls. Integers are exact at any size, also as bare JSON numbers. A failing chain RPC answers 502 within 10 s. ' +
      'A simulation still running after SIM_TIMEOUT_MS (10 s) is a 504 `simulation_timeout`; one needing more than SIM_MAX_UPSTREAM_READS (5,000) node reads, or whose result NATS cannot carry, a 422. ' +
      "Merkle's Go and TypeScript SDKs work as they are (Authorization: Token KEY).",
    scope: 'simulate',
    body: { schema: SimulateRequestSchema, example: ex.SIMULATE },
    responses: { 200: { description: 'One result per call, in order', schema: SimulationResultSchema, example: ex.SIMULATION_RESULT } },
    errors: [...BODY_ERRORS, 422, 502],
    errorExample: { status: 400, body: { error: true, name: 'Error', message: 'Nonce mismatch. Expected 5, got 7 on call #1', details: null } },
  },
  {
    method: 'get',
    path: '/v1/dashboard-url',
    summary: "A signed URL of the customer dashboard: the tenant's intents",
    description:
      "`{url, expiresAt}`: `<PUBLIC_BASE_URL>/dashboard?token=…`, valid DASHBOARD_TOKEN_TTL_SECONDS (15 min). The token (HS256) grants only this tenant's intent list, search and event stream.",
    scope: 'intents:read',
    responses: { 200: { description: 'The URL', schema: DashboardUrlSchema, headers: noStore, example: ex.DASHBOARD_URL } },
    errors: COMMON_ERRORS,
    errorExample: { status: 401, body: ex.UNAUTHORIZED },
  },
  {
    method: 'get',
    path: '/health',
    summary: 'Liveness',
    scope: null,
    responses: { 200: { description: 'The process is up', schema: LivenessSchema, example: ex.LIVENESS } },
    errors: [],
  },
  {
    method: 'get',
    path: '/ready',
    summary: 'Readiness of this gateway: its Postgres and NATS answer; which dependency is down',
    description:
      "For load balancers. A service behind the gateway being down does not make it unready (that service's routes answer 503 on every replica alike): it is named in `failing` and the status is `degraded`.",
    scope: null,
    responses: {
      200: {
        description: 'Ready: `{status: "ok" | "degraded", checks: {database, nats, services}, failing}` (`degraded`: a service named in `failing` is down)',
        schema: ReadinessSchema,
        example: ex.READY,
      },
      503: {
        description: 'Postgres or NATS is down: `{status: "unavailable", checks, failing}` (`failing` names it, e.g. `["database"]`)',
        schema: ReadinessSchema,
        headers: retryAfter,
        example: ex.NOT_READY,
      },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/health/services',
    summary: "Each service as this gateway sees it, with its latency and each chain endpoint's head, lag and state",
    scope: null,
    responses: {
      200: {
        description: 'Always 200; `status` is `degraded` when a service does not answer within 1 s, or a chain endpoint it reads is down or lagging',
        schema: ServicesHealthSchema,
        example: ex.SERVICES_HEALTH,
      },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    scope: null,
    responses: { 200: { description: 'Prometheus text exposition format', contentType: 'text/plain', schema: z.string(), example: ex.METRICS } },
    errors: [],
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    description: 'Generated from the route table and the contracts’ zod schemas; the same as `openapi.json` at the repository root.',
    scope: null,
    responses: { 200: { description: 'The OpenAPI 3.1 document', schema: z.looseObject({ openapi: z.string() }), example: ex.OPENAPI_EXCERPT } },
    errors: [],
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'This document rendered (Swagger UI)',
    description: 'Its script and style are served from /docs/assets/ and /docs/init.js, by this process.',
    scope: null,
    responses: { 200: { ...page('An HTML page'), example: ex.HTML_PAGE } },
    errors: [],
  },
  {
    method: 'get',
    path: '/docs/init.js',
    summary: 'The script that starts Swagger UI on /openapi.json',
    scope: null,
    responses: { 200: { description: 'JavaScript', contentType: 'application/javascript', schema: z.string(), example: ex.INIT_JS } },
    errors: [],
  },
  {
    method: 'get',
    path: '/dashboard',
    summary: 'The customer dashboard page',
    description:
      'Opened with a signed dashboard URL (`?token=`, from GET /v1/dashboard-url or GET /v1/source/{id}/dashboard-url): the page calls the API with that token, never a key. Its script and style are under /dashboard/assets/.',
    scope: null,
    responses: {
      200: { ...page('An HTML page (never cached)'), example: ex.HTML_PAGE },
      503: { description: 'The dashboard was not built (`npm run build`)', contentType: 'text/plain', schema: z.string(), example: ex.DASHBOARD_NOT_BUILT },
    },
    errors: [],
  },
];
