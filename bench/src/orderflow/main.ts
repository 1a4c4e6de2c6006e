// Order-flow benchmark: `npm run bench:orderflow` (which installs and builds first).
//
// The product on one machine, from its build, in-process: a hardhat node (automine off, FIFO
// pool) with a Uniswap V2 DEX, test-support's LocalRelay building what it receives into the node,
// a throw-away database and NATS, the simulation, payout and orderflow services and the gateway.
// Each trial: a wallet's swap goes to POST /v1/rpc; its hint is read off GET /v1/mev/stream (raw
// SSE); two searchers each POST a signed mev_sendBundle (X-Flashbots-Signature) paying a bid; the
// winning bundle's arrival at the relay is the submission; a block is mined. Measured:
// - private transaction received → hint on the stream (from the request's start to the event);
// - bundle received → simulated verdict (mev_sendBundle's round trip: it answers after simulating);
// - the last bid → submission (the last bid's answer to the relay's receipt of the round), which
//   waits for round 1's window to close; and the window's close → submission (the decision alone).
// Writes bench/results/orderflow.json. BENCH_TRIALS (default 50) trials.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PAYOUT_SOURCE_REGISTER } from '@tradeinfra/contracts';
import { devWallet, HardhatNode, LocalDex, LocalRelay, TestDatabase, TestNatsServer, TestRpcClient } from '@tradeinfra/test-support';
import { id as keccakText, MaxUint256, Transaction, Wallet } from 'ethers';
import { envInt, hostInfo, log, percentile, resultsPath, ROOT } from '../harness/index.js';

const TRIALS = envInt('BENCH_TRIALS', 50, { max: 1000 });
const ETH = 10n ** 18n;
const GWEI = 10n ** 9n;
const SETTINGS = { ORDERFLOW_AUCTION_WINDOW_MS: '1000', ORDERFLOW_POLL_INTERVAL_MS: '100', ORDERFLOW_CONFIRMATIONS: '3' };

const app = (name: string, path: string) => import(join(ROOT, 'apps', name, 'dist', path)) as Promise<any>;

interface Trial {
  hintMs: number;
  verdictMs: number[];
  lastBidToSubmissionMs: number;
  windowCloseToSubmissionMs: number;
}

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? null };
}

async function main(): Promise<void> {
  const node = await HardhatNode.start({ chainId: 1 });
  const rpc = <T = any>(method: string, params: unknown[] = []) => node.rpc.call<T>(method, params);
  const dex = await LocalDex.deploy(node);
  const token = await dex.deployToken('PlainToken', [10n ** 27n]);
  await dex.launch(token, 10n ** 24n, 100n * ETH);
  await rpc('evm_setAutomine', [false]);
  const relay = await LocalRelay.start({ buildOn: (method, params) => rpc(method, params) });
  const nats = await TestNatsServer.start();
  const db = await TestDatabase.create('bench_orderflow');
  const treasury = devWallet(10);
  const user = devWallet(3);
  const searchers = [devWallet(4), devWallet(5)];
  const base = {
    ...process.env,
    ...db.env,
    NATS_URL: nats.url,
    LOG_FORMAT: 'json',
    GATEWAY_DB_POOL_SIZE: '4',
    PAYOUT_DB_POOL_SIZE: '4',
    ORDERFLOW_DB_POOL_SIZE: '6',
    SIM_WORKERS: '2',
    RPC_URL_1: node.url,
    ORDERFLOW_RELAY_URLS_1: relay.url,
    ORDERFLOW_BENEFICIARY_1: treasury.address,
    PAYOUT_CHAIN_IDS: '1',
    ...SETTINGS,
  };
  const gatewayApp = (p: string) => app('gateway', p);
  const [gatewayEnvMod, payoutEnvMod, orderflowEnvMod, simEnvMod] = await Promise.all([
    gatewayApp('config/env.js'),
    app('payout-service', 'config/env.js'),
    app('orderflow-service', 'config/env.js'),
    app('simulation-service', 'config/env.js'),
  ]);
  const gatewayEnv = gatewayEnvMod.loadEnv({ ...base, PORT: '0', HOST: '127.0.0.1' });
  const payoutEnv = payoutEnvMod.loadEnv(base);
  const orderflowEnv = orderflowEnvMod.loadEnv(base);
  for (const [name, env] of [
    ['gateway', gatewayEnv],
    ['payout-service', payoutEnv],
    ['orderflow-service', orderflowEnv],
  ] as const) {
    const { createDataSource, runMigrations } = await app(name, 'database/data-source.js');
    const ds = await createDataSource(env).initialize();
    await runMigrations(ds);
    await ds.destroy();
  }
  const services = [
    await (await app('simulation-service', 'bootstrap.js')).createSimulationService(simEnvMod.loadEnv(base), false),
    await (await app('payout-service', 'bootstrap.js')).createPayoutService(payoutEnv, false),
    await (await app('orderflow-service', 'bootstrap.js')).createOrderflowService(orderflowEnv, false),
  ];
  const gateway = await (await gatewayApp('bootstrap.js')).createGateway(gatewayEnv, false);
  const baseUrl = `http://127.0.0.1:${(gateway.getHttpServer().address() as { port: number }).port}`;
  const { ApiKeysService } = await gatewayApp('auth/api-keys.service.js');
  const { ApiKeysRepository } = await gatewayApp('auth/api-keys.repository.js');
  const keysDb = await (await gatewayApp('database/data-source.js')).createDataSource({ ...gatewayEnv, GATEWAY_DB_POOL_SIZE: 2 }).initialize();
  const keys = new ApiKeysService(new ApiKeysRepository(keysDb), { API_KEY_CACHE_TTL_MS: 0 });
  const { key, tenantId } = await keys.create({ name: 'bench-wallet', scopes: ['rpc'] });
  const natsRpc = await TestRpcClient.connect(nats.url);
  await natsRpc.request(PAYOUT_SOURCE_REGISTER, { id: 'bench-wallet', tenantId });

  // The hint stream, raw: each event's arrival by hash.
  const hints = new Map<string, number>();
  const abort = new AbortController();
  const stream = await fetch(`${baseUrl}/v1/mev/stream`, { signal: abort.signal });
  const reading = (async () => {
    const reader = stream.body!.getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += Buffer.from(value!).toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(event)?.[1];
        if (data) hints.set((JSON.parse(data) as { hash: string }).hash, performance.now());
      }
    }
  })();
  const post = async (path: string, body: string, headers: Record<string, string>) => {
    const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    return (await res.json()) as { result?: any; error?: { message: string } };
  };
  const waitFor = async <T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = probe();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  };

  const trials: Trial[] = [];
  const swapData = dex.a.UniswapV2Router02!.iface.encodeFunctionData('swapExactETHForTokens', [0, [dex.weth, token], user.address, MaxUint256]);
  try {
    for (let i = 0; i < TRIALS; i++) {
      const nonce = Number(await rpc<string>('eth_getTransactionCount', [user.address, 'latest']));
      const raw = await new Wallet(user.privateKey).signTransaction({
        chainId: 1,
        type: 2,
        nonce,
        to: dex.router,
        data: swapData,
        value: ETH / 10n,
        gasLimit: 300_000n,
        maxFeePerGas: 2n * GWEI,
        maxPriorityFeePerGas: GWEI,
      });
      const target = Transaction.from(raw).hash!;
      const sentAt = performance.now();
      const sent = await post(
        `/v1/rpc?source=bench-wallet&key=${key}`,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }),
        {},
      );
      if (sent.result !== target) throw new Error(`eth_sendRawTransaction: ${JSON.stringify(sent)}`);
      const hintAt = await waitFor('the hint', () => hints.get(target));
      const head = BigInt(await rpc<string>('eth_blockNumber'));
      const verdictMs: number[] = [];
      let lastBidAt = 0;
      await Promise.all(
        searchers.map(async (s, j) => {
          const backrunNonce = Number(await rpc<string>('eth_getTransactionCount', [s.address, 'latest']));
          const backrun = await new Wallet(s.privateKey).signTransaction({
            chainId: 1,
            type: 2,
            nonce: backrunNonce,
            to: treasury.address,
            value: BigInt(j + 1) * 10n ** 15n,
            gasLimit: 50_000n,
            maxFeePerGas: 2n * GWEI,
            maxPriorityFeePerGas: GWEI,
          });
          const body = JSON.stringify({
            params: [
              {
                version: 'v0.1',
                inclusion: { block: `0x${(head + 1n).toString(16)}`, maxBlock: `0x${(head + 3n).toString(16)}` },
                body: [{ hash: target }, { tx: backrun, canRevert: false }],
              },
            ],
            method: 'mev_sendBundle',
            id: 69,
            jsonrpc: '2.0',
          });
          const signer = new Wallet(s.privateKey);
          const signature = `${signer.address}:${await signer.signMessage(keccakText(body))}`;
          const started = performance.now();
          const reply = await post('/v1/mev', body, { 'x-flashbots-signature': signature });
          const answered = performance.now();
          if (!reply.result?.bundleHash) throw new Error(`mev_sendBundle: ${JSON.stringify(reply)}`);
          verdictMs.push(answered - started);
          lastBidAt = Math.max(lastBidAt, Date.now() - (performance.now() - answered));
        }),
      );
      const submitted = await relay.waitFor((b) => b.txs.some((t) => Transaction.from(t).hash === target));
      await relay.settled();
      await rpc('evm_mine');
      const [{ ms }] = await db.query<{ ms: string }>(
        'SELECT (extract(epoch FROM received_at) * 1000)::text AS ms FROM orderflow.private_txs WHERE hash = $1',
        [target],
      );
      const windowClose = Number(ms) + Number(SETTINGS.ORDERFLOW_AUCTION_WINDOW_MS);
      const trial = {
        hintMs: hintAt - sentAt,
        verdictMs,
        lastBidToSubmissionMs: submitted.at - lastBidAt,
        windowCloseToSubmissionMs: submitted.at - windowClose,
      };
      trials.push(trial);
      log(
        `#${i + 1}: hint ${trial.hintMs.toFixed(1)} ms; verdicts ${verdictMs.map((v) => v.toFixed(1)).join(', ')} ms; last bid → submission ${trial.lastBidToSubmissionMs.toFixed(0)} ms, window close → submission ${trial.windowCloseToSubmissionMs.toFixed(0)} ms`,
      );
    }
  } finally {
    abort.abort();
    await reading;
    await natsRpc.close().catch(() => undefined);
    await gateway.close().catch(() => undefined);
    for (const s of services.reverse()) await s.close().catch(() => undefined);
    await keysDb.destroy().catch(() => undefined);
    await relay.stop();
    await nats.dispose();
    await db.drop();
    await node.stop();
  }
  const summary = {
    privateTxToHintMs: stats(trials.map((t) => t.hintMs)),
    bundleToVerdictMs: stats(trials.flatMap((t) => t.verdictMs)),
    lastBidToSubmissionMs: stats(trials.map((t) => t.lastBidToSubmissionMs)),
    windowCloseToSubmissionMs: stats(trials.map((t) => t.windowCloseToSubmissionMs)),
  };
  const out = resultsPath('orderflow');
  mkdirSync(dirname(out), { recursive: true });
  const round1 = (v: number | null | undefined) => (v == null ? null : Math.round(v * 10) / 10);
  const rounded = Object.fromEntries(Object.entries(summary).map(([k, s]) => [k, { n: s.n, p50: round1(s.p50), p99: round1(s.p99), max: round1(s.max) }]));
  writeFileSync(
    out,
    `${JSON.stringify({ bench: 'orderflow', at: new Date().toISOString(), host: hostInfo(), settings: { ...SETTINGS, trials: TRIALS }, summary: rounded }, null, 2)}\n`,
  );
  for (const [name, s] of Object.entries(rounded)) log(`${name}: p50 ${s.p50} ms, p99 ${s.p99} ms, max ${s.max} ms (n=${s.n})`);
  log(`wrote ${out}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`bench:orderflow failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
