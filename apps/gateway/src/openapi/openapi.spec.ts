import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { RequestMethod, type Type } from '@nestjs/common';
import { AppModule } from '../app.module.js';
import type { GatewayEnv } from '../config/env.js';
import { DASHBOARD_ACCESS, REQUIRED_SCOPE, type DashboardAccess } from '../auth/scopes.js';
import {
  createIntentRequestSchema,
  createExitRequestSchema,
  createIntentsBatchRequestSchema,
  createWalletIntentRequestSchema,
  ErrorBodySchema,
  FieldIssuesSchema,
} from '@tradeinfra/contracts';
import type { z } from 'zod';
import { httpStatusOf } from '../http/gateway-error.js';
import { buildOpenApiDocument, OPENAPI_FILE, renderOpenApiDocument, ROUTES } from './openapi.js';

type Json = Record<string, unknown>;

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
  components: { headers: Record<string, unknown>; schemas: { Error: { properties: { name: { enum: string[] } } } } };
};

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument() as unknown as Doc;

  it('is committed as generated: openapi.json at the repository root', () => {
    let committed = '';
    try {
      committed = readFileSync(OPENAPI_FILE, 'utf8');
    } catch {
      // missing: reported below
    }
    if (committed !== renderOpenApiDocument()) {
      throw new Error(`${OPENAPI_FILE} is not what the route table and the contracts' schemas produce: run \`npm run openapi\` and commit openapi.json`);
    }
  });

  it('documents every route the gateway controllers serve, with the scope and dashboard access they enforce', () => {
    const served: string[] = [];
    // Every feature module's controllers (AppModule only imports the feature modules).
    const modules = AppModule.forRoot({} as GatewayEnv).imports ?? [];
    const controllers = modules.flatMap((m) =>
      typeof m === 'function' ? ((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, m) as Type[] | undefined) ?? []) : [],
    );
    expect(controllers.length).toBeGreaterThan(0);
    for (const controller of controllers) {
      const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '').replace(/^\/|\/$/g, '');
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (path === undefined || method === undefined) continue;
        const full = `/${[base, path.replace(/^\//, '')].filter(Boolean).join('/')}`.replace(/:([A-Za-z]+)/g, '{$1}');
        const verb = RequestMethod[method].toLowerCase();
        const scope = (Reflect.getMetadata(REQUIRED_SCOPE, handler) as string | undefined) ?? null;
        const access = Reflect.getMetadata(DASHBOARD_ACCESS, handler) as DashboardAccess | undefined;
        const dashboard = access ? (access.query ? 'query' : access.source ? 'source' : 'header') : null;
        served.push(`${verb} ${full} scope=${scope} dashboard=${dashboard}`);
      }
    }
    const documented = ROUTES.map((r) => `${r.method} ${r.path} scope=${r.scope} dashboard=${r.dashboard ?? null}`);
    expect(documented).toEqual(expect.arrayContaining(served));
    // The one documented route no controller serves: the dashboard page (mounted in bootstrap).
    expect(documented.filter((r) => !served.includes(r))).toEqual(['get /dashboard scope=null dashboard=null']);
  });

  it('gives every route a documented success and a schema for every JSON answer', () => {
    for (const route of ROUTES) {
      const where = `${route.method.toUpperCase()} ${route.path}`;
      expect(`${where}: ${Object.keys(route.responses).some((s) => s.startsWith('2'))}`).toBe(`${where}: true`);
      for (const [status, response] of Object.entries(route.responses)) {
        expect(`${where} ${status}: ${response.schema !== undefined}`).toBe(`${where} ${status}: true`);
      }
    }
  });

  describe.each(ROUTES.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))('%s', (_where, route) => {
    it('has a request example (when it takes a body) that its own request schema accepts', () => {
      if (!route.body) return;
      expect(route.body.example).toBeDefined();
      // Create examples carry a fixed expiry: parsed as of a day before it (it must be ahead, at most 30 days).
      const now = () => 1893456000_000 - 24 * 3600_000;
      const creates: Record<string, z.ZodType> = {
        'post /v1/intent': createIntentRequestSchema({ now }),
        'post /v1/intents': createIntentsBatchRequestSchema({ now }),
        'post /v1/wallet/intent': createWalletIntentRequestSchema({ now }),
        'post /v1/exit': createExitRequestSchema({ now }),
      };
      const schema = creates[`${route.method} ${route.path}`] ?? route.body.schema;
      const parsed = schema.safeParse(route.body.example);
      expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    });

    it('has an example of every success (and documented non-error) answer that its schema accepts', () => {
      for (const [status, response] of Object.entries(route.responses)) {
        expect(`${status}: ${response.example !== undefined}`).toBe(`${status}: true`);
        const parsed = response.schema!.safeParse(response.example);
        expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
      }
    });

    it('has an example of its main error, an error body named for its status', () => {
      if (route.errors.length === 0) return;
      const example = route.errorExample;
      expect(example).toBeDefined();
      expect(route.errors).toContain(example!.status);
      expect(ErrorBodySchema.parse(example!.body)).toEqual(example!.body);
      expect(httpStatusOf(example!.body.name)).toBe(example!.status);
      if (example!.body.name === 'ValidationError') expect(FieldIssuesSchema.parse(example!.body.details)).not.toHaveLength(0);
    });

    it('shows the examples in the document it serves', () => {
      const operation = (doc.paths as unknown as Record<string, Record<string, { requestBody?: Json; responses: Record<string, Json> }>>)[route.path]![
        route.method
      ]!;
      if (route.body) expect(JSON.stringify(operation.requestBody)).toContain('"example"');
      for (const status of Object.keys(route.responses)) expect(JSON.stringify(operation.responses[status])).toContain('"example"');
      if (route.errorExample) expect(JSON.stringify(operation.responses[String(route.errorExample.status)])).toContain(JSON.stringify(route.errorExample.body));
    });
  });

  it('documents /ready with its real body (also on 503) and /health/services', () => {
    const ready = doc.paths['/ready']!.get!.responses as Record<string, { headers?: unknown; content?: Record<string, { schema: unknown }> }>;
    expect(ready['503']!.headers).toHaveProperty('Retry-After');
    expect(ready['503']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Readiness' });
    expect(ready['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Readiness' });
    expect(doc.paths['/health/services']!.get!.responses).toHaveProperty('200');
  });

  it('documents the headers: WWW-Authenticate on 401, Retry-After on 429 and 503, X-RateLimit-* on answers to a key', () => {
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'WWW-Authenticate']),
    );
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(operations)) {
        // Public /v1 routes (the MEV-Share hint stream, searchers' signed bundles) take no key.
        const security = (op as { security?: unknown[] }).security;
        if (Array.isArray(security) && security.length === 0) continue;
        const where = `${method.toUpperCase()} ${path}`;
        expect(`${where}: ${Object.keys(op.responses['401']?.headers ?? {})}`).toBe(`${where}: WWW-Authenticate`);
        expect(`${where}: ${Object.keys(op.responses['503']?.headers ?? {})}`).toBe(`${where}: Retry-After`);
        expect(op.responses['429']?.headers).toHaveProperty('Retry-After');
        const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))!;
        expect(success[1].headers).toHaveProperty('X-RateLimit-Reset');
      }
    }
    expect(doc.components.schemas.Error.properties.name.enum).toContain('RequestTimeout');
  });

  it('documents batch create and bulk cancel (DELETE and its POST alias) with examples', () => {
    const paths = doc.paths as unknown as Record<string, Record<string, Record<string, any>>>;
    const create = paths['/v1/intents']!.post!;
    expect(create.requestBody.content['application/json'].example).toHaveLength(2);
    expect(create.responses['201'].content['application/json'].example).toHaveLength(2);
    expect(paths['/v1/intents']!.delete!.requestBody.content['application/json'].example.ids).toHaveLength(3);
    expect(paths['/v1/intents/cancel']!.post!.responses['200'].content['application/json'].example.map((r: { reason: string | null }) => r.reason)).toEqual([
      null,
      'not_pending',
      'not_found',
    ]);
    const schemas = doc.components.schemas as unknown as Record<string, any>;
    expect(schemas.CreateIntents).toMatchObject({ minItems: 1, maxItems: 100 });
    expect(schemas.BulkCancel.properties.ids).toMatchObject({ minItems: 1, maxItems: 500 });
  });

  it('takes request bodies, query parameters and answers from the contracts (the drift fixed by generating it)', () => {
    const paths = doc.paths as unknown as Record<string, Record<string, Record<string, any>>>;
    expect(paths['/v1/sources']!.post!.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RegisterSource' });
    expect(paths['/v1/sources']!.post!.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RegisteredSource' });
    expect(paths['/v1/cashback/source/{id}']!.get!.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Cashback' });
    expect(paths['/v1/intents/notifications/secret']!.get!.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/NotificationSecret',
    });
    const query = Object.fromEntries((paths['/v1/payouts']!.get!.parameters as Array<{ name: string; schema: unknown }>).map((p) => [p.name, p.schema]));
    expect(query.status).toMatchObject({ enum: ['PENDING', 'PAID'] });
    expect(query.limit).toMatchObject({ pattern: expect.any(String) });
    const schemas = doc.components.schemas as unknown as Record<string, any>;
    expect(schemas.Intent.required).toContain('launch');
    expect(JSON.stringify(schemas.Intent.properties.launch)).toContain('#/components/schemas/IntentLaunch');
  });
});
