import { ConsoleLogger as NestConsoleLogger, type ConsoleLogger, type INestMicroservice } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { TestDatabase, TestNatsServer } from '@tradeinfra/test-support';
import type { DataSource } from 'typeorm';
import { ApiKeysRepository } from '../../apps/gateway/src/auth/api-keys.repository.js';
import { ApiKeysService } from '../../apps/gateway/src/auth/api-keys.service.js';
import type { Scope } from '../../apps/gateway/src/auth/scopes.js';
import { createGateway } from '../../apps/gateway/src/bootstrap.js';
import { loadEnv as loadGatewayEnv, type GatewayEnv } from '../../apps/gateway/src/config/env.js';
import { createDataSource as gatewayDataSource, runMigrations as migrateGateway } from '../../apps/gateway/src/database/data-source.js';
import { createIntentService } from '../../apps/intent-service/src/bootstrap.js';
import { createPayoutService } from '../../apps/payout-service/src/bootstrap.js';
import { loadEnv as loadPayoutEnv, type PayoutServiceEnv } from '../../apps/payout-service/src/config/env.js';
import { createDataSource as payoutDataSource, runMigrations as migratePayout } from '../../apps/payout-service/src/database/data-source.js';
import { createOrderflowService } from '../../apps/orderflow-service/src/bootstrap.js';
import { loadEnv as loadOrderflowEnv, type OrderflowServiceEnv } from '../../apps/orderflow-service/src/config/env.js';
import { createDataSource as orderflowDataSource, runMigrations as migrateOrderflow } from '../../apps/orderflow-service/src/database/data-source.js';
import { createSimulationService } from '../../apps/simulation-service/src/bootstrap.js';
import { loadEnv as loadSimulationEnv } from '../../apps/simulation-service/src/config/env.js';
import { loadEnv as loadIntentEnv, type IntentServiceEnv } from '../../apps/intent-service/src/config/env.js';
import { createDataSource as intentDataSource, runMigrations as migrateIntent } from '../../apps/intent-service/src/database/data-source.js';

export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is (not JSON-encoded). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface StackOptions {
  /**
   * The intent, payout and orderflow services each on a database of its own (`intentDb`, `payoutDb`, `orderflowDb`),
   * rather than all on `db`: for tests that take one service's database away.
   */
  ownDatabases?: boolean;
}

/**
 * The whole product on one machine: a private NATS server, a database of its own (bootstrapped
 * and migrated as `npm start` does), the intent and simulation services (chains from the
 * `RPC_URL_<id>` entries of `env`), and the gateway on a free port.
 */
export class Stack {
  readonly intentReplicas: INestMicroservice[] = [];
  simulation: INestMicroservice | null = null;
  readonly payoutReplicas: INestMicroservice[] = [];
  readonly orderflowReplicas: INestMicroservice[] = [];
  orderflowEnv!: OrderflowServiceEnv;
  payoutEnv!: PayoutServiceEnv;
  private gateway!: NestExpressApplication;
  private keysDb!: DataSource;
  private keys!: ApiKeysService;
  baseUrl = '';
  gatewayEnv!: GatewayEnv;
  /** The environment every process of the stack starts from (a CLI run against it takes it too). */
  baseEnv: NodeJS.ProcessEnv = {};
  intentEnv!: IntentServiceEnv;

  /** The gateway's database, and the services' unless `ownDatabases`. */
  readonly db: TestDatabase;
  /** The intent service's database (`db` unless `ownDatabases`). */
  readonly intentDb: TestDatabase;
  /** The payout service's database (`db` unless `ownDatabases`). */
  readonly payoutDb: TestDatabase;
  /** The orderflow service's database (`db` unless `ownDatabases`). */
  readonly orderflowDb: TestDatabase;

  private constructor(
    readonly nats: TestNatsServer,
    databases: { db: TestDatabase; intentDb: TestDatabase; payoutDb: TestDatabase; orderflowDb: TestDatabase },
  ) {
    ({ db: this.db, intentDb: this.intentDb, payoutDb: this.payoutDb, orderflowDb: this.orderflowDb } = databases);
  }

  static async start(env: Record<string, string> = {}, options: StackOptions = {}): Promise<Stack> {
    const bootstrapEnv = { ...process.env, ...env };
    const own = (db: TestDatabase, prefix: string) => (options.ownDatabases ? TestDatabase.create(prefix, bootstrapEnv) : Promise.resolve(db));
    const [nats, db] = await Promise.all([TestNatsServer.start(), TestDatabase.create('e2e', bootstrapEnv)]);
    const stack = new Stack(nats, {
      db,
      intentDb: await own(db, 'e2e_intent'),
      payoutDb: await own(db, 'e2e_payout'),
      orderflowDb: await own(db, 'e2e_orderflow'),
    });
    // Small pools: two test files run at once on a Postgres with max_connections 100.
    // One simulation worker (each loads its own EVM for a second or more), whatever the machine's cores.
    const pools = { GATEWAY_DB_POOL_SIZE: '4', INTENT_DB_POOL_SIZE: '8', PAYOUT_DB_POOL_SIZE: '8', ORDERFLOW_DB_POOL_SIZE: '4', SIM_WORKERS: '1' };
    const base = { ...process.env, ...pools, ...stack.db.env, ...stack.nats.env, ...env };
    stack.baseEnv = base;
    stack.intentEnv = loadIntentEnv({ ...base, ...stack.intentDb.env });
    stack.payoutEnv = loadPayoutEnv({ ...base, ...stack.payoutDb.env });
    stack.orderflowEnv = loadOrderflowEnv({ ...base, ...stack.orderflowDb.env });
    stack.gatewayEnv = loadGatewayEnv({ ...base, PORT: '0', HOST: '127.0.0.1' });
    // The simulation service needs no database: its workers load while the others migrate and start.
    const simulation = stack.startSimulation();
    try {
      for (const [make, migrate] of [
        [() => intentDataSource(stack.intentEnv), migrateIntent],
        [() => gatewayDataSource(stack.gatewayEnv), migrateGateway],
        [() => payoutDataSource(stack.payoutEnv), migratePayout],
        [() => orderflowDataSource(stack.orderflowEnv), migrateOrderflow],
      ] as const) {
        const ds = await make().initialize();
        await migrate(ds);
        await ds.destroy();
      }
      await stack.addIntentReplica();
      await stack.addPayoutReplica();
      await stack.addOrderflowReplica();
    } catch (err) {
      await simulation.catch(() => undefined);
      throw err;
    }
    await simulation;
    stack.gateway = await createGateway(stack.gatewayEnv, false);
    const address = stack.gateway.getHttpServer().address() as { port: number };
    stack.baseUrl = `http://127.0.0.1:${address.port}`;
    stack.keysDb = await gatewayDataSource({ ...stack.gatewayEnv, GATEWAY_DB_POOL_SIZE: 2 }).initialize();
    stack.keys = new ApiKeysService(new ApiKeysRepository(stack.keysDb), { API_KEY_CACHE_TTL_MS: 0 });
    return stack;
  }

  /** Service logs stay quiet unless E2E_LOGS=1 (for debugging a failing suite). */
  async addIntentReplica(
    logger: ConsoleLogger | false = process.env.E2E_LOGS === '1' ? new NestConsoleLogger() : false,
    env: Record<string, string> = {},
  ): Promise<INestMicroservice> {
    const app = await createIntentService(loadIntentEnv({ ...this.baseEnv, ...this.intentDb.env, ...env }), logger);
    this.intentReplicas.push(app);
    return app;
  }

  async startSimulation(): Promise<void> {
    this.simulation = await createSimulationService(loadSimulationEnv(this.baseEnv), process.env.E2E_LOGS === '1' ? new NestConsoleLogger() : false);
  }

  async stopSimulation(): Promise<void> {
    await this.simulation?.close();
    this.simulation = null;
  }

  async addPayoutReplica(): Promise<INestMicroservice> {
    const app = await createPayoutService(this.payoutEnv, false);
    this.payoutReplicas.push(app);
    return app;
  }

  /** An orderflow-service replica (its env: the stack's, with `env` on top). */
  async addOrderflowReplica(env: Record<string, string> = {}): Promise<INestMicroservice> {
    const logger = process.env.E2E_LOGS === '1' ? new NestConsoleLogger() : false;
    const app = await createOrderflowService(loadOrderflowEnv({ ...this.baseEnv, ...this.orderflowDb.env, ...env }), logger);
    this.orderflowReplicas.push(app);
    return app;
  }

  /** The environment every service of the stack was started with. */
  get env(): NodeJS.ProcessEnv {
    return this.baseEnv;
  }

  /** A new API key (its own tenant unless `tenant` is named). */
  async createKey(options: { scopes?: Scope[]; tenant?: string; rateLimitPerSecond?: number } = {}): Promise<string> {
    return (await this.createKeyWithTenant(options)).key;
  }

  /** A new API key and the id of its tenant. */
  async createKeyWithTenant(options: { scopes?: Scope[]; tenant?: string; rateLimitPerSecond?: number } = {}): Promise<{ key: string; tenantId: string }> {
    const name = `key-${Math.random().toString(36).slice(2)}`;
    return this.keys.create({ name, ...options });
  }

  async revokeKey(key: string): Promise<void> {
    await this.keys.revoke(key);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers['x-api-key'] = options.key;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  async close(): Promise<void> {
    await this.gateway?.close().catch(() => undefined);
    for (const app of this.intentReplicas) await app.close().catch(() => undefined);
    await this.simulation?.close().catch(() => undefined);
    for (const app of this.payoutReplicas) await app.close().catch(() => undefined);
    for (const app of this.orderflowReplicas) await app.close().catch(() => undefined);
    await this.keysDb?.destroy().catch(() => undefined);
    await this.nats.dispose();
    for (const db of new Set([this.db, this.intentDb, this.payoutDb, this.orderflowDb])) await db.drop();
  }
}

export const WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const TOKEN = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

/** A valid creation body; override any field. */
export function intentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    chainId: 1,
    wallet: WALLET,
    tokenAddress: TOKEN,
    bribe: '1000',
    buyAmount: '1000000000000000000',
    expiry: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  };
}

/** A fresh random checksummable (lowercase) wallet, so tests do not see each other's intents. */
export function randomWallet(): string {
  return '0x' + Array.from({ length: 40 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
}
