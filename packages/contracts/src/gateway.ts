import { z } from 'zod';

/*
 * What the gateway answers by itself (no service behind it): health, readiness, dashboard URLs.
 * The types are inferred from these schemas; the OpenAPI document is generated from them.
 */

/** `GET /health`: the process answers. */
export const LivenessSchema = z.strictObject({ status: z.literal('ok') });
export type Liveness = z.output<typeof LivenessSchema>;

const upDown = () => z.enum(['up', 'down']);

/**
 * `GET /ready`: 200 when the gateway's own Postgres and NATS answer (`ok`, or `degraded` when a
 * service behind it does not), else 503 `unavailable`. `checks` has each dependency's state,
 * `failing` names the ones down: `database`, `nats`, then services by name.
 */
export const ReadinessSchema = z.strictObject({
  status: z.enum(['ok', 'degraded', 'unavailable']),
  checks: z.strictObject({
    database: upDown(),
    nats: upDown(),
    services: z
      .record(z.string(), upDown())
      .meta({ description: 'By service name (intent-service, simulation-service, payout-service): whether a replica answers its health request within 1 s' }),
  }),
  failing: z.array(z.string()).meta({ description: 'The dependencies down, by name: database, nats, or a service name; empty when all answer' }),
});
export type Readiness = z.output<typeof ReadinessSchema>;

/** One JSON-RPC endpoint of a chain, as a service's last check of it found it. */
export const EndpointHealthSchema = z.strictObject({
  url: z.string().meta({ description: 'Scheme and host of the endpoint (never its path or credentials)' }),
  state: z.enum(['up', 'lagging', 'down', 'unknown']).meta({
    description:
      'up: answers, near the highest head; lagging: answers, more than RPC_MAX_LAG_BLOCKS behind (no reads); down: does not answer; unknown: not checked yet',
  }),
  head: z.string().nullable().meta({ description: 'The newest block number it gave (decimal); null before it gave one' }),
  lag: z.number().int().min(0).nullable().meta({ description: 'Blocks behind the highest head of the live endpoints' }),
  latencyMs: z.number().min(0).nullable().meta({ description: 'Round trip of its last check, ms' }),
  reads: z.boolean().meta({ description: 'Whether the service reads from it now' }),
  error: z.string().optional().meta({ description: 'Why it is down' }),
});
export type EndpointHealth = z.output<typeof EndpointHealthSchema>;

/** A chain's endpoints as one service uses them. */
export const ChainHealthSchema = z.strictObject({
  chainId: z.number().int().min(1),
  endpoints: z.array(EndpointHealthSchema),
});
export type ChainHealth = z.output<typeof ChainHealthSchema>;

/** One service as the gateway sees it. */
export const ServiceStateSchema = z.strictObject({
  state: upDown(),
  /** Round trip of the health request, ms; null when it got no answer within 1 s. */
  latencyMs: z.number().min(0).nullable().meta({ description: 'Round trip of the health request, ms; null when it got no answer within 1 s' }),
  /** The chains the service reads (RPC_URL_<id>), each endpoint's head, lag and state. */
  chains: z.array(ChainHealthSchema).optional().meta({ description: "The chains the service reads, with each endpoint's head, lag and state" }),
});
export type ServiceState = z.output<typeof ServiceStateSchema>;

/** `GET /health/services`: always 200; `degraded` when any service does not answer within 1 s, or a chain endpoint is down or lagging. */
export const ServicesHealthSchema = z.strictObject({
  status: z.enum(['ok', 'degraded']),
  services: z.record(z.string(), ServiceStateSchema).meta({ description: 'By service name: intent-service, simulation-service, payout-service' }),
});
export type ServicesHealth = z.output<typeof ServicesHealthSchema>;

/** A signed customer dashboard URL (`GET /v1/dashboard-url`, `GET /v1/source/:id/dashboard-url`). */
export const DashboardUrlSchema = z.strictObject({
  url: z.url().meta({ description: '<PUBLIC_BASE_URL>/dashboard?token=<JWT>' }),
  expiresAt: z.iso.datetime(),
});
export type DashboardUrl = z.output<typeof DashboardUrlSchema>;
