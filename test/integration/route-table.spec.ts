/**
 * NATS_ROUTES (packages/contracts/src/routes.ts) against the code: every request subject has a
 * handler in its service, is sent by the callers the table names, and each public HTTP route that
 * forwards to it is in the OpenAPI document and has an SDK method. No service is started.
 */
import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamicModule, Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants.js';
import { PATTERN_METADATA } from '@nestjs/microservices/constants.js';
import { NATS_ROUTES, type Caller, type ServiceName } from '@tradeinfra/contracts';
import { AppModule as GatewayModule } from '../../apps/gateway/src/app.module.js';
import { ROUTES as OPENAPI_ROUTES } from '../../apps/gateway/src/openapi/openapi.js';
import { AppModule as IntentModule } from '../../apps/intent-service/src/app.module.js';
import { AppModule as OrderflowModule } from '../../apps/orderflow-service/src/app.module.js';
import { AppModule as PayoutModule } from '../../apps/payout-service/src/app.module.js';
import { AppModule as SimulationModule } from '../../apps/simulation-service/src/app.module.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROUTES = Object.entries(NATS_ROUTES);

/**
 * Public HTTP routes the SDK has no method for, each with its reason. Everything else the table
 * lists under `http` must appear in packages/sdk/src/client.ts.
 */
const SDK_EXEMPT: Record<string, string> = {
  // JSON-RPC endpoints: wallets and searchers speak to them with their own Ethereum/Flashbots clients.
  'POST /v1/rpc': 'JSON-RPC (eth clients)',
  'POST /v1/mev': 'JSON-RPC (Flashbots clients)',
  // The SDK's bulk cancel sends the POST alias (a body on DELETE is not portable).
  'DELETE /v1/intents': 'alias of POST /v1/intents/cancel',
};

/** The source folders a caller's requests are written in (service-kit holds the shared simulation client). */
const CALLER_SOURCES: Record<Caller, string[]> = {
  gateway: ['apps/gateway/src'],
  intent: ['apps/intent-service/src', 'packages/service-kit/src'],
  simulation: ['apps/simulation-service/src'],
  payout: ['apps/payout-service/src', 'packages/service-kit/src'],
  orderflow: ['apps/orderflow-service/src', 'packages/service-kit/src'],
};

function sources(dirs: string[]): string {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? (e.name === 'test' ? [] : walk(join(dir, e.name))) : e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [join(dir, e.name)] : [],
    );
  return dirs
    .flatMap((d) => walk(join(ROOT, d)))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

/** Every NATS subject a module tree's controllers handle. */
function handledSubjects(root: DynamicModule): Set<string> {
  const subjects = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (entry: unknown): void => {
    if (!entry || seen.has(entry)) return;
    seen.add(entry);
    const dynamic = typeof entry === 'object' ? (entry as DynamicModule) : null;
    const type = (dynamic ? dynamic.module : entry) as Type;
    const meta = <T>(key: string): T[] => (Reflect.getMetadata(key, type) as T[] | undefined) ?? [];
    const controllers = [...meta<Type>(MODULE_METADATA.CONTROLLERS), ...(dynamic?.controllers ?? [])];
    for (const controller of controllers) {
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (typeof handler !== 'function') continue;
        for (const pattern of (Reflect.getMetadata(PATTERN_METADATA, handler) as unknown[] | undefined) ?? []) subjects.add(String(pattern));
      }
    }
    for (const imported of [...meta<unknown>(MODULE_METADATA.IMPORTS), ...(dynamic?.imports ?? [])]) visit(imported);
  };
  visit(root);
  return subjects;
}

describe('the route table (NATS_ROUTES)', () => {
  it('declares each subject once', () => {
    const subjects = ROUTES.map(([, r]) => r.subject);
    expect(subjects.filter((s, i) => subjects.indexOf(s) !== i)).toEqual([]);
  });

  it('has a handler for every subject in the service that serves it', () => {
    // forRoot only assembles module metadata: nothing connects.
    const env = {} as never;
    const handled: Record<ServiceName, Set<string>> = {
      intent: handledSubjects(IntentModule.forRoot(env)),
      simulation: handledSubjects(SimulationModule.forRoot(env)),
      payout: handledSubjects(PayoutModule.forRoot(env)),
      orderflow: handledSubjects(OrderflowModule.forRoot(env)),
    };
    const missing = ROUTES.filter(([, r]) => !handled[r.service].has(r.subject)).map(
      ([key, r]) => `${key} (${r.subject}): no handler in the ${r.service} service`,
    );
    expect(missing).toEqual([]);
    // And no service handles a subject the table does not declare.
    const declared = new Set(ROUTES.map(([, r]) => r.subject));
    const undeclared = Object.entries(handled).flatMap(([service, subjects]) => [...subjects].filter((s) => !declared.has(s)).map((s) => `${service}: ${s}`));
    expect(undeclared).toEqual([]);
  });

  it('is sent by every caller it names, through the table (`NATS_ROUTES.<key>`), and by no other', () => {
    const code = Object.fromEntries(Object.entries(CALLER_SOURCES).map(([caller, dirs]) => [caller, sources(dirs)])) as Record<Caller, string>;
    const uses = (caller: Caller, key: string) => new RegExp(`NATS_ROUTES\\.${key}\\b`).test(code[caller]);
    const missing = ROUTES.flatMap(([key, r]) => r.callers.filter((c) => !uses(c, key)).map((c) => `${key}: the ${c} does not send it`));
    expect(missing).toEqual([]);
    // The gateway only forwards what the table says it forwards.
    const unlisted = ROUTES.filter(([key, r]) => !r.callers.includes('gateway') && uses('gateway', key)).map(([key]) => key);
    expect(unlisted).toEqual([]);
  });

  it('documents every public HTTP route that forwards to a subject in the OpenAPI document', () => {
    const documented = new Set(OPENAPI_ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`));
    const missing = ROUTES.flatMap(([key, r]) => r.http.filter((h) => !documented.has(h)).map((h) => `${key}: ${h} is not in the OpenAPI route table`));
    expect(missing).toEqual([]);
    // The gateway serves them: openapi.spec.ts checks the document against the controllers.
    expect(GatewayModule.forRoot({} as never).imports?.length).toBeGreaterThan(0);
  });

  it('has an SDK method for every public HTTP route (or an exemption saying why not)', () => {
    const client = readFileSync(join(ROOT, 'packages/sdk/src/client.ts'), 'utf8');
    // Each path literal of the client, its `${…}` segments as `{}`, with the method written in the same call.
    const calls = [...client.matchAll(/method: '(GET|POST|DELETE)'[^;]*?path: ['`]([^'`]+)['`]/g)].map(
      ([, m, p]) => `${m} ${p!.replace(/\$\{[^}]+\}/g, '{}')}`,
    );
    const paths = [...client.matchAll(/['`](\/(?:v1|health)[^'`]*)['`]/g)].map(([, p]) => p!.replace(/\$\{[^}]+\}/g, '{}'));
    const has = (route: string) => {
      const [method, path] = route.split(' ') as [string, string];
      const normal = path.replace(/\{[^}]+\}/g, '{}');
      return calls.includes(`${method} ${normal}`) || paths.includes(normal);
    };
    const missing = ROUTES.flatMap(([key, r]) =>
      r.http.filter((h) => !(h in SDK_EXEMPT) && !has(h)).map((h) => `${key}: ${h} has no method in packages/sdk/src/client.ts`),
    );
    expect(missing).toEqual([]);
    const stale = Object.keys(SDK_EXEMPT).filter((h) => !ROUTES.some(([, r]) => r.http.includes(h)));
    expect(stale).toEqual([]);
  });

  it('says why a subject without a public HTTP route is internal', () => {
    expect(ROUTES.filter(([, r]) => r.http.length === 0 && !r.internal).map(([key]) => key)).toEqual([]);
  });
});
