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

/** One service as the gateway sees it. */
export const ServiceStateSchema = z.strictObject({
  state: upDown(),
  /** Round trip of the health request, ms; null when it got no answer within 1 s. */
  latencyMs: z.number().min(0).nullable().meta({ description: 'Round trip of the health request, ms; null when it got no answer within 1 s' }),
});
export type ServiceState = z.output<typeof ServiceStateSchema>;

/** `GET /health/services`: always 200; `degraded` when any service does not answer within 1 s. */
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
