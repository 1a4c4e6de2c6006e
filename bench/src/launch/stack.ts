// The launch bench's stack: the chain with the DEX, NATS, the database, the services, the signing
// webhook (and, BENCH_RPC_TIMING=1, the RPC timing proxy), each a child of the bench.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { freePort } from '@tradeinfra/test-support';
import { HDNodeWallet } from 'ethers';
import { bootstrapDatabase } from '../../../infra/postgres/bootstrap.mjs';
import {
  BENCH_DIST,
  hostInfo,
  log,
  packageVersion,
  request,
  ROOT,
  waitFor200,
  type BenchNats,
  type BenchNode,
  type Child,
  type Figures,
} from '../harness/index.js';
import {
  artifact,
  CHAIN_ID,
  children,
  codeVersion,
  env,
  HARDFORK,
  mined,
  MNEMONIC,
  P,
  productApps,
  rpc,
  run,
  runNode,
  serviceArgs,
  startHardhat,
  step,
} from './context.js';
import type { LaunchContext } from './launch-once.js';
import { followServiceLog, followSimulationLog } from './service-log.js';

export interface Stack {
  ctx: LaunchContext;
  node: BenchNode;
  nats: BenchNats;
  dbName: string;
  machine: Figures;
  /** The intent service's env (the pending scenario restarts it with more). */
  intentEnv: Record<string, string>;
  /** The intent service following blocks (the pending scenario stops it). */
  service: Child;
}

/** The hardhat node, its accounts' wallets, and WETH9, UniswapV2Factory and UniswapV2Router02 deployed. */
async function startChain(): Promise<{ node: BenchNode; deployer: string; wallets: HDNodeWallet[]; dex: LaunchContext['dex'] }> {
  step(`starting hardhat node (chain ${CHAIN_ID}, ${P.wallets + 1} accounts, no automine)`);
  const node = await startHardhat();
  log(`  ${node.version} at ${node.url} (pid ${node.pid})`);
  const accounts = await rpc<string[]>('eth_accounts');
  const deployer = accounts[0]!.toLowerCase();
  const parent = HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/60'/0'/0");
  const wallets = Array.from({ length: P.wallets }, (_, i) => parent.deriveChild(i + 1));
  for (let i = 0; i < Math.min(3, wallets.length); i++) {
    if (wallets[i]!.address.toLowerCase() !== accounts[i + 1]!.toLowerCase())
      throw new Error(`derived wallet ${i + 1} ${wallets[i]!.address} is not the node's account ${accounts[i + 1]}`);
  }
  step('deploying WETH9, UniswapV2Factory, UniswapV2Router02');
  const erc20 = artifact('@uniswap/v2-core/build/ERC20.json');
  const weth9 = artifact('@uniswap/v2-periphery/build/WETH9.json');
  const factoryArt = artifact('@uniswap/v2-core/build/UniswapV2Factory.json');
  const routerArt = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
  const create = async (art: typeof erc20, args: unknown[]) =>
    (await mined(deployer, null, art.bytecode + art.iface.encodeDeploy(args).slice(2))).contractAddress!.toLowerCase();
  const weth = await create(weth9, []);
  const factory = await create(factoryArt, [deployer]);
  const router = await create(routerArt, [factory, weth]);
  log(`  WETH9 ${weth}, factory ${factory}, router ${router}`);
  return { node, deployer, wallets, dex: { erc20, weth, factory, router, routerIface: routerArt.iface } };
}

/** The bench database, bootstrapped and migrated, and an API key of the bench tenant. */
async function startDatabase(nats: BenchNats): Promise<{ dbName: string; baseEnv: Record<string, string>; key: string }> {
  const dbName = `ti_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  step(`creating database ${dbName}`);
  run.useDatabase(dbName);
  await bootstrapDatabase({ env, database: dbName });
  // No chain settings of the caller's leak into the services: the bench sets its own.
  const cleanEnv = Object.fromEntries(
    Object.entries(env).filter(([k]) => !/^(RPC_URL|HARDFORK|DEX_FACTORY|DEX_ROUTER|WRAPPED_NATIVE|STABLE_PAIR|DEV_SIGNER_KEYS|RELAY_URLS)_\d+$/.test(k)),
  );
  const baseEnv = { ...cleanEnv, PGDATABASE: dbName, NATS_URL: nats.url, LOG_FORMAT: 'json', NO_COLOR: '1' };
  for (const app of productApps().filter((a) => existsSync(join(ROOT, 'apps', a, 'dist/database/migrate.js')))) {
    log(`  ${runNode(`apps/${app}/dist/database/migrate.js`, [], baseEnv).trim()}`);
  }
  const key = runNode('apps/gateway/dist/cli/apikey.js', ['create', '--name', 'bench', '--scopes', 'intents:read,intents:write'], baseEnv).trim();
  if (!/^ti_[A-Za-z0-9_-]{43}$/.test(key)) throw new Error(`apikey create printed something unexpected: ${key.slice(0, 80)}`);
  return { dbName, baseEnv, key };
}

/** BENCH_RPC_TIMING=1: both services reach the node through the timing proxy (its own process); its port, else null. */
async function startRpcProxy(node: BenchNode): Promise<number | null> {
  if (!P.rpcTiming) return null;
  const proxyPort = await freePort();
  step(`starting the RPC timing proxy on port ${proxyPort}`);
  await children.start('rpc-proxy', process.execPath, [join(BENCH_DIST, 'launch', 'rpc-proxy.js')], {
    cwd: ROOT,
    env: { ...process.env, BENCH_PROXY_UPSTREAM: node.url, BENCH_PROXY_PORT: String(proxyPort) },
    readyLine: /rpc proxy listening/,
    readyTimeoutMs: 30_000,
  }).ready;
  return proxyPort;
}

/** The signing webhook, in its own process, with the wallets' keys and the tenant's secret. */
async function startWebhook(gatewayPort: number, key: string, wallets: HDNodeWallet[]): Promise<{ webhook: Child; webhookPort: number; webhookUrl: string }> {
  const agent = new http.Agent({ keepAlive: false });
  const secretRes = await request(agent, gatewayPort, { path: '/v1/intents/notifications/secret', headers: { 'x-api-key': key } });
  if (secretRes.status !== 200) throw new Error(`GET /v1/intents/notifications/secret: ${secretRes.status} ${secretRes.body.slice(0, 200)}`);
  const secret = (JSON.parse(secretRes.body) as { secret: string }).secret;
  const webhookPort = await freePort();
  step(`starting the signing webhook (${P.signerThreads} signing thread(s)) on port ${webhookPort}`);
  const webhook = children.start('signing-webhook', process.execPath, [join(BENCH_DIST, 'launch', 'signing-webhook.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      BENCH_SIGNER_KEYS: wallets.map((w) => w.privateKey).join(','),
      BENCH_SIGNER_SECRET: secret,
      BENCH_SIGNER_THREADS: String(P.signerThreads),
      BENCH_SIGNER_PORT: String(webhookPort),
    },
    readyLine: /signing webhook listening/,
    readyTimeoutMs: 30_000,
  });
  await webhook.ready;
  return { webhook, webhookPort, webhookUrl: `http://127.0.0.1:${webhookPort}/sign` };
}

export async function startStack(): Promise<Stack> {
  const { node, deployer, wallets, dex } = await startChain();
  step('starting NATS');
  const nats = await run.startNats();
  log(`  NATS ${nats.private ? `private nats-server at ${nats.url}` : `shared at ${nats.url}`}`);
  const { dbName, baseEnv, key } = await startDatabase(nats);
  const db = run.pool(dbName, 2);
  const proxyPort = await startRpcProxy(node);
  const rpcUrlFor = (client: string) => (proxyPort ? `http://127.0.0.1:${proxyPort}/${client}` : node.url);
  const productEnv = { ...baseEnv, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', HOST: '127.0.0.1' };
  const intentEnv: Record<string, string> = {
    ...productEnv,
    CHAIN_IDS: String(CHAIN_ID),
    [`RPC_URL_${CHAIN_ID}`]: rpcUrlFor('intent'),
    [`HARDFORK_${CHAIN_ID}`]: HARDFORK,
    [`DEX_FACTORY_${CHAIN_ID}`]: dex.factory,
    [`DEX_ROUTER_${CHAIN_ID}`]: dex.router,
    [`WRAPPED_NATIVE_${CHAIN_ID}`]: dex.weth,
    LAUNCH_POLL_INTERVAL_MS: String(P.servicePollMs),
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SIGNER_TIMEOUT_MS: String(P.signerTimeoutMs),
    // Launches seen in their block only: the pending scenario turns the mempool on.
    ...(P.ws ? { [`WS_URL_${CHAIN_ID}`]: node.url.replace(/^http/, 'ws'), [`MEMPOOL_LAUNCHES_${CHAIN_ID}`]: 'off' } : {}),
  };
  step('starting the simulation service, the intent service and the gateway');
  const simulation = children.start('simulation-service', process.execPath, serviceArgs('simulation-service'), {
    cwd: ROOT,
    // LOG_REQUESTS: one line per simulation with its duration (the token probe's share of a round).
    env: { ...productEnv, [`RPC_URL_${CHAIN_ID}`]: rpcUrlFor('sim'), [`HARDFORK_${CHAIN_ID}`]: HARDFORK, LOG_REQUESTS: 'true' },
    readyLine: /listening on/,
    readyTimeoutMs: 30_000,
  });
  const simLog = followSimulationLog(simulation);
  await simulation.ready;
  const service = children.start('intent-service', process.execPath, serviceArgs('intent-service'), {
    cwd: ROOT,
    env: intentEnv,
    readyLine: /listening on/,
    readyTimeoutMs: 30_000,
  });
  const serviceLog = followServiceLog(service);
  await service.ready;
  const gatewayPort = await freePort();
  const gateway = children.start('gateway', process.execPath, [join(ROOT, 'apps/gateway/dist/main.js')], {
    cwd: ROOT,
    env: { ...productEnv, PORT: String(gatewayPort) },
    readyLine: /listening on/,
    readyTimeoutMs: 30_000,
  });
  await gateway.ready;
  await waitFor200(gatewayPort, '/health', { children, timeoutMs: 30_000, what: 'gateway /health' });
  const { webhook, webhookPort, webhookUrl } = await startWebhook(gatewayPort, key, wallets);

  const machine = {
    ...hostInfo(),
    postgres: (await db.query<{ v: string }>('SELECT version() AS v')).rows[0]!.v,
    nats: { url: nats.url, private: nats.private, version: nats.version },
    chainNode: { client: node.version, hardhat: packageVersion('hardhat'), edr: packageVersion('@nomicfoundation/edr'), config: node.config },
    ethers: packageVersion('ethers'),
    code: codeVersion(),
  };
  const pids = {
    'intent-service': service.child.pid,
    'simulation-service': simulation.child.pid,
    'signing-webhook': webhook.child.pid,
    hardhat: node.pid,
    ...(nats.pid ? { 'nats-server': nats.pid } : {}),
  };
  const ctx: LaunchContext = {
    dex,
    deployer,
    wallets,
    gatewayPort,
    key,
    db,
    serviceLog,
    webhookUrl,
    webhookPort,
    node,
    pids,
    simLog,
    proxyPort,
    webhookAgent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
    pollAgent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
  };
  run.onCleanup(() => {
    ctx.webhookAgent.destroy();
    ctx.pollAgent.destroy();
  });
  return { ctx, node, nats, dbName, machine, intentEnv, service };
}
