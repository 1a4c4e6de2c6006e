// Failover benchmark: `npm run bench:failover` (which installs and builds first).
//
// How long a launch goes unseen when one of a chain's two endpoints dies. One hardhat node
// (automine) with a Uniswap V2 DEX, two JSON-RPC proxies in front of it (test-support's
// JsonRpcProxy: RPC_URL and WS_URL list both), and the intent service (in-process, from its build)
// on a throw-away database and NATS, with the production defaults for polling and endpoint checks
// (LAUNCH_POLL_INTERVAL_MS 1000, RPC_CHECK_INTERVAL_MS 1000, RPC_CHECK_TIMEOUT_MS 2000). Each trial:
// an intent waits for a fresh token, the watcher is level with the head, the endpoint reads go to
// is killed (refused connections) or stalled (requests never answered), the token launches at
// once, and the time until the launch is recorded in intent.launches is measured, from the kill
// and from the launch block. A baseline runs the same with both endpoints alive. Writes
// bench/results/failover.json. BENCH_TRIALS (default 5) trials per case.
import { randomUUID } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { INTENT_CREATE } from '@tradeinfra/contracts';
import { HardhatNode, JsonRpcProxy, LocalDex, TestDatabase, TestNatsServer, TestRpcClient, type ProxyFault } from '@tradeinfra/test-support';
import { envInt, hostInfo, log, percentile, resultsPath, ROOT } from '../harness/index.js';

const CHAIN_ID = 31337;
const SUPPLY = 10n ** 27n;
const TRIALS = envInt('BENCH_TRIALS', 5, { max: 100 });

interface Trial {
  fromKillMs: number;
  fromBlockMs: number;
}

const app = (path: string) => import(join(ROOT, 'apps', 'intent-service', 'dist', path)) as Promise<any>;

async function main(): Promise<void> {
  const node = await HardhatNode.start({ chainId: CHAIN_ID });
  const dex = await LocalDex.deploy(node);
  const [a, b] = await Promise.all([JsonRpcProxy.start({ upstream: node.url }), JsonRpcProxy.start({ upstream: node.url })]);
  const nats = await TestNatsServer.start();
  const db = await TestDatabase.create('bench_failover');
  const { loadEnv } = await app('config/env.js');
  const { createDataSource, runMigrations } = await app('database/data-source.js');
  const { createIntentService } = await app('bootstrap.js');
  const env = loadEnv({
    ...process.env,
    ...db.env,
    NATS_URL: nats.url,
    INTENT_DB_POOL_SIZE: '4',
    CHAIN_IDS: String(CHAIN_ID),
    RPC_URL_31337: `${a.url},${b.url}`,
    WS_URL_31337: `${a.wsUrl},${b.wsUrl}`,
    MEMPOOL_LAUNCHES_31337: 'off',
    DEX_FACTORY_31337: dex.factory,
    WRAPPED_NATIVE_31337: dex.weth,
  });
  const ds = await createDataSource(env).initialize();
  await runMigrations(ds);
  await ds.destroy();
  const service = await createIntentService(env, false);
  const rpc = await TestRpcClient.connect(nats.url);
  const head = async () => BigInt(await node.rpc.call<string>('eth_blockNumber'));
  const cursor = async () => BigInt((await db.query<{ n: string | null }>('SELECT max(number)::text AS n FROM intent.chain_blocks'))[0]!.n ?? '-1');
  const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const results: Record<string, Trial[]> = {};
  try {
    for (const [name, fault] of [
      ['both alive', null],
      ['reading endpoint killed', { kind: 'down' }],
      ['reading endpoint stalled', { kind: 'stall' }],
    ] as [string, ProxyFault | null][]) {
      results[name] = [];
      for (let i = 0; i < TRIALS; i++) {
        const token = await dex.deployToken('PlainToken', [SUPPLY]);
        await rpc.request(INTENT_CREATE, {
          tenantId: randomUUID(),
          idempotencyKey: null,
          body: {
            chainId: CHAIN_ID,
            wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
            tokenAddress: token,
            bribe: '1',
            buyAmount: '1',
            expiry: Math.floor(Date.now() / 1000) + 3600,
          },
        });
        await until('the watcher level with the head', async () => (await cursor()) >= (await head()));
        // Both endpoints up again after the last trial, the first one reading.
        await until('both endpoints up', async () =>
          (await service.get((await app('common/chain-nodes.js')).ChainNodes).health())[0].endpoints.every((e: any) => e.state === 'up'),
        );
        const killed = performance.now();
        if (fault) await a.fault(fault);
        await dex.launch(token, SUPPLY / 10n, 10n ** 18n);
        const mined = performance.now();
        await until('the launch recorded', async () => (await db.query('SELECT 1 FROM intent.launches WHERE token = $1', [token])).length > 0);
        const seen = performance.now();
        results[name].push({ fromKillMs: Math.round(seen - killed), fromBlockMs: Math.round(seen - mined) });
        log(`${name} #${i + 1}: launch recorded ${Math.round(seen - killed)} ms after the fault, ${Math.round(seen - mined)} ms after its block`);
        await a.fault(null);
      }
    }
  } finally {
    await rpc.close().catch(() => undefined);
    await service.close().catch(() => undefined);
    await Promise.all([a.close(), b.close()]);
    await nats.dispose();
    await db.drop();
    await node.stop();
  }
  const summary = Object.fromEntries(
    Object.entries(results).map(([name, trials]) => {
      const kill = trials.map((t) => t.fromKillMs).sort((x, y) => x - y);
      const block = trials.map((t) => t.fromBlockMs).sort((x, y) => x - y);
      return [
        name,
        { trials, fromKillP50Ms: percentile(kill, 50), fromKillMaxMs: kill.at(-1), fromBlockP50Ms: percentile(block, 50), fromBlockMaxMs: block.at(-1) },
      ];
    }),
  );
  const out = resultsPath('failover');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ bench: 'failover', at: new Date().toISOString(), host: hostInfo(), settings: { LAUNCH_POLL_INTERVAL_MS: 1000, RPC_CHECK_INTERVAL_MS: 1000, RPC_CHECK_TIMEOUT_MS: 2000, trials: TRIALS }, summary }, null, 2)}\n`,
  );
  for (const [name, s] of Object.entries(summary))
    log(`${name}: from the fault p50 ${s.fromKillP50Ms} ms, max ${s.fromKillMaxMs} ms; from the launch block p50 ${s.fromBlockP50Ms} ms`);
  log(`wrote ${out}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`bench:failover failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
