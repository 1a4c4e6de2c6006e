// Exit benchmark: `npm run bench:exit` (which installs and builds first).
//
// The intent and simulation services from their build, in-process, on a hardhat node (automine
// off, FIFO pool, followed over its WebSocket) with a Uniswap V2 DEX, test-support's LocalRelay
// as the relay, a throw-away database and NATS. Each trial: a token launched, BENCH_EXITS (100)
// wallets holding it, each with an onRug exit and a take-profit exit (created over NATS), a block
// mined so that they are priced; then
// - anti-rug: the deployer's removeLiquidityETH is sent pending; measured from the rug's first
//   sight by the service (its pending-hash feed) to the last sell handed to the relay (the
//   bundle sent), and from outside: rug sent → `[sells…, rug]` received by the relay;
// - price trigger: another account's buy is mined; measured from the new block seen to the sells
//   handed over, and from outside: evm_mine answered → the last sell bundle received.
// Writes bench/results/exit.json. BENCH_TRIALS (default 5) trials.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EXIT_CREATE } from '@tradeinfra/contracts';
import { devWallet, HardhatNode, LocalDex, LocalRelay, TestDatabase, TestNatsServer, TestRpcClient } from '@tradeinfra/test-support';
import { keccak256, MaxUint256 } from 'ethers';
import { envInt, hostInfo, log, percentile, resultsPath, ROOT } from '../harness/index.js';

const TRIALS = envInt('BENCH_TRIALS', 5, { max: 100 });
const EXITS = envInt('BENCH_EXITS', 100, { max: 500 });
const CHAIN_ID = 31337;
const ETH = 10n ** 18n;
const TARGET_P50_MS = 150;

const app = (name: string, path: string) => import(join(ROOT, 'apps', name, 'dist', path)) as Promise<any>;

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
  return { n: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? null) };
}

async function main(): Promise<void> {
  const node = await HardhatNode.start({ chainId: CHAIN_ID });
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const dex = await LocalDex.deploy(node);
  await rpc('evm_setAutomine', [false]);
  // The relay builds what it receives into the node's pool (after it has recorded its arrival).
  const relay = await LocalRelay.start({ buildOn: (method, params) => rpc(method, params) });
  const nats = await TestNatsServer.start();
  const db = await TestDatabase.create('bench_exit');
  const wallets = Array.from({ length: EXITS }, (_, i) => devWallet(100 + i));
  const trader = devWallet(12).address;
  const base = {
    ...process.env,
    ...db.env,
    NATS_URL: nats.url,
    LOG_FORMAT: 'json',
    INTENT_DB_POOL_SIZE: '8',
    SIM_WORKERS: '2',
    CHAIN_IDS: String(CHAIN_ID),
    RPC_URL_31337: node.url,
    WS_URL_31337: node.url.replace('http', 'ws'),
    HARDFORK_31337: 'prague',
    DEX_FACTORY_31337: dex.factory,
    DEX_ROUTER_31337: dex.router,
    WRAPPED_NATIVE_31337: dex.weth,
    DEV_SIGNER_KEYS_31337: wallets.map((w) => w.privateKey).join(','),
    RELAY_URLS_31337: relay.url,
    LAUNCH_POLL_INTERVAL_MS: '100',
  };
  const intentEnv = (await app('intent-service', 'config/env.js')).loadEnv(base);
  const { createDataSource, runMigrations } = await app('intent-service', 'database/data-source.js');
  const ds = await createDataSource(intentEnv).initialize();
  await runMigrations(ds);
  const simulation = await (
    await app('simulation-service', 'bootstrap.js')
  ).createSimulationService((await app('simulation-service', 'config/env.js')).loadEnv(base), false);
  const intents = await (await app('intent-service', 'bootstrap.js')).createIntentService(intentEnv, process.env.BENCH_LOGS === '1' ? undefined : false);
  const { ExitWatcher } = await app('intent-service', 'exits/exit-watcher.js');
  const watcher = intents.get(ExitWatcher) as { fireLatencies: number[]; evaluatedHead(chainId: number): bigint };
  const nc = await TestRpcClient.connect(nats.url);
  const tenantId = '00000000-0000-4000-8000-00000000e417';
  const erc20 = dex.a.PlainToken!.iface;
  const router = dex.a.UniswapV2Router02!.iface;
  const expiry = () => Math.floor(Date.now() / 1000) + 3600;
  const waitFor = async <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  const send = (from: string, to: string, data: string, value = 0n) =>
    rpc<string>('eth_sendTransaction', [{ from, to, data, value: `0x${value.toString(16)}`, gas: '0x7a1200' }]);
  for (const w of wallets) await rpc('hardhat_setBalance', [w.address, `0x${ETH.toString(16)}`]);

  const rug = { internal: [] as number[], external: [] as number[] };
  const price = { internal: [] as number[], external: [] as number[] };
  try {
    for (let trial = 0; trial < TRIALS; trial++) {
      // Two tokens, launched; every wallet holds 0.1 % of each pool, with an exit on each: take-profit at 1.2× on one, onRug on the other.
      const launched = async (exit: (i: number) => Record<string, unknown>) => {
        const token = await dex.deployToken('PlainToken', [10n ** 27n]);
        await dex.launch(token, 10n ** 26n, 100n * ETH);
        for (const w of wallets) await send(dex.owner, token, erc20.encodeFunctionData('transfer', [w.address, 10n ** 23n]));
        await rpc('evm_mine');
        for (const [i, w] of wallets.entries()) {
          const body = { chainId: CHAIN_ID, tokenAddress: token, wallet: w.address, gasTip: '0', expiry: expiry(), bribe: String(1000 + i), ...exit(i) };
          await nc.request(EXIT_CREATE, { tenantId, idempotencyKey: null, body });
        }
        return token;
      };
      const token = await launched(() => ({ takeProfit: 1.2, entryPrice: '1000000000000' }));
      const guarded = await launched(() => ({ onRug: true }));
      await rpc('evm_mine');
      await waitFor('priced', async () => {
        const [{ n }] = (await ds.query(
          `SELECT count(*)::int AS n FROM intent.intents WHERE is_exit AND status = 'pending' AND highest_price IS NOT NULL AND lower(token_address) IN ($1, $2)`,
          [token, guarded],
        )) as { n: number }[];
        return n === 2 * EXITS ? true : undefined;
      });

      // Price trigger: the trader's buy is mined; the take-profit sells go out as bundles.
      await send(trader, dex.router, router.encodeFunctionData('swapExactETHForTokens', [0, [dex.weth, token], trader, MaxUint256]), 50n * ETH);
      const firedBefore = watcher.fireLatencies.length;
      const relayBefore = relay.bundles.length;
      const minedAt = Date.now();
      await rpc('evm_mine');
      await waitFor('take-profit sells', () => (relay.bundles.length - relayBefore >= EXITS ? true : undefined));
      await waitFor('the price round measured', () => (watcher.fireLatencies.length > firedBefore ? true : undefined));
      price.external.push(Math.max(...relay.bundles.slice(relayBefore).map((b) => b.at)) - minedAt);
      price.internal.push(...watcher.fireLatencies.slice(firedBefore));

      await rpc('evm_mine');
      // Anti-rug: the deployer removes its liquidity from the other token's pool, pending.
      const pair = await dex.pairOf(guarded);
      const lp = await dex.balanceOf(pair, dex.owner);
      await send(dex.owner, pair, erc20.encodeFunctionData('approve', [dex.router, MaxUint256]));
      await rpc('evm_mine');
      // The rug comes on a chain the watcher is up to date with (it evaluated the latest block).
      const latest = BigInt(await rpc<string>('eth_blockNumber'));
      await waitFor('the latest block evaluated', () => (watcher.evaluatedHead(CHAIN_ID) >= latest ? true : undefined));
      const rugBefore = watcher.fireLatencies.length;
      const sentAt = Date.now();
      const rugHash = await send(dex.owner, dex.router, router.encodeFunctionData('removeLiquidityETH', [guarded, lp, 0, 0, dex.owner, expiry()]));
      const bundle = await relay.waitFor((b) => b.txs.length > 0 && keccak256(b.txs[b.txs.length - 1]!) === rugHash, 60_000);
      rug.external.push(bundle.at - sentAt);
      await waitFor('the rug round measured', () => (watcher.fireLatencies.length > rugBefore ? true : undefined));
      rug.internal.push(watcher.fireLatencies[rugBefore]!);
      log(
        `trial ${trial + 1}/${TRIALS}: rug seen → ${EXITS} sells handed ${watcher.fireLatencies[rugBefore]} ms; block → ${EXITS} take-profit sells ${price.internal.at(-1)} ms`,
      );
      // The sells (and the rug) are mined; the next trial starts on new tokens once every sell is settled.
      await relay.settled();
      await rpc('evm_mine');
      await waitFor('every sell settled', async () => {
        const [{ n }] = (await ds.query(`SELECT count(*)::int AS n FROM intent.intents WHERE is_exit AND status = 'pending' AND phase IS NOT NULL`)) as {
          n: number;
        }[];
        return n === 0 ? true : undefined;
      });
    }
  } finally {
    await nc.close();
    await ds.destroy();
    await intents.close();
    await simulation.close();
    await relay.stop();
    await nats.stop();
    await db.drop();
    await node.stop();
  }
  const results = {
    bench: 'exit',
    at: new Date().toISOString(),
    host: hostInfo(),
    settings: { trials: TRIALS, onRugExitsPerTrial: EXITS, takeProfitExitsPerTrial: EXITS, signer: 'development signer (in-process keys)' },
    antiRug: {
      seenToLastSellHandedMs: stats(rug.internal),
      rugSentToBundleAtRelayMs: stats(rug.external),
      targetP50Ms: TARGET_P50_MS,
    },
    priceTrigger: { newBlockSeenToLastSellHandedMs: stats(price.internal), blockMinedToLastBundleAtRelayMs: stats(price.external) },
  };
  const path = resultsPath('exit');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  log(
    `anti-rug: seen → last sell handed p50 ${results.antiRug.seenToLastSellHandedMs.p50} ms, p99 ${results.antiRug.seenToLastSellHandedMs.p99} ms (target p50 ≤ ${TARGET_P50_MS} ms)`,
  );
  log(
    `price trigger: block seen → last sell handed p50 ${results.priceTrigger.newBlockSeenToLastSellHandedMs.p50} ms, p99 ${results.priceTrigger.newBlockSeenToLastSellHandedMs.p99} ms`,
  );
  log(`wrote ${path}`);
}

await main();
