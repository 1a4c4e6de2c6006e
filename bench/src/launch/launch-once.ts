// One launch of `size` intents: deploy a token, create the intents through the gateway, mine
// the launch, time it, check the mempool and the pending block, mine the buys, check every
// intent through the API. The steps up to the last buy in the mempool are here; the checks after
// it in launch-checks.ts.
import type http from 'node:http';
import type { HDNodeWallet } from 'ethers';
import type pg from 'pg';
import { cpuMeter, log, request, round, runLoad, sleep, type BenchNode, type Figures } from '../harness/index.js';
import { BRIBE_BASE, BUY_AMOUNT, CHAIN_ID, hex, mined, P, POOL_ETH, POOL_TOKENS, rpc, run, SUPPLY, type Artifact, type Receipt } from './context.js';
import { checkDetection, checkPendingBlock, checkWebhook, logLaunch, mineAndSettle, recordRpcTimings, verifyOutcomes } from './launch-checks.js';
import type { ServiceLog, SimulationDone } from './service-log.js';

/** What every launch uses: the deployed DEX, the wallets, the stack and the bench's own clients. */
export interface LaunchContext {
  dex: { erc20: Artifact; weth: string; factory: string; router: string; routerIface: Artifact['iface'] };
  deployer: string;
  wallets: HDNodeWallet[];
  gatewayPort: number;
  key: string;
  db: pg.Pool;
  serviceLog: ServiceLog;
  simLog: SimulationDone[];
  webhookUrl: string;
  webhookPort: number;
  node: BenchNode;
  pids: Record<string, number | undefined>;
  /** The RPC timing proxy's port (BENCH_RPC_TIMING=1), else null. */
  proxyPort: number | null;
  webhookAgent: http.Agent;
  pollAgent: http.Agent;
}

/** One launch's figures as they go into the results file; `errors` fail the run. */
export type LaunchRun = Figures & { label: string; size: number; mode: string; protocol: SigningProtocol; errors: string[]; retries: string[] };

/** What the intents' signing webhook speaks: ours (`tradeinfra`, batches per BENCH_WEBHOOK_BATCH) or Merkle's (one request per buy). */
export type SigningProtocol = 'tradeinfra' | 'merkle';

/** The launch as sent: its hash, and when it was sent and mined (pending: sent). */
export interface SentLaunch {
  addHash: string;
  sendAt: number;
  mineStart: number;
  /** The reference time: the launch mined (block), or sent (pending). */
  mineEnd: number;
  meter: ReturnType<typeof cpuMeter>;
}

export async function launchOnce(
  ctx: LaunchContext,
  size: number,
  label: string,
  mode: 'block' | 'pending' = 'block',
  protocol: SigningProtocol = 'tradeinfra',
): Promise<LaunchRun> {
  // `pending`: the launch transaction is left in the mempool; the service must buy right behind it.
  const pending = mode === 'pending';
  const out: LaunchRun = { label, size, mode, protocol, errors: [], retries: [] };
  const fail = (msg: string) => {
    out.errors.push(msg);
    log(`  ERROR: ${msg}`);
  };

  // 1. a fresh token, approved to the router
  const token = await deployToken(ctx);
  out.token = token;

  // 2. the intents, through the gateway
  const ids = await createIntents(ctx, out, token, size, protocol);
  if (typeof ids === 'string') {
    fail(ids);
    return out;
  }
  if (protocol === 'merkle') {
    // Merkle's signing request names the intent, not the wallet: the bot knows its own intents.
    const book = ids.map((intentId, i) => ({ intentId, wallet: ctx.wallets[i % ctx.wallets.length]!.address }));
    await request(ctx.webhookAgent, ctx.webhookPort, { method: 'POST', path: '/__intents', body: JSON.stringify(book) });
  }

  // 3. quiet: the outbox relay has published the `created` events, the watcher has looked the token up
  await waitQuiet(ctx, out);
  const pendingBefore = (await rpc<{ transactions: string[] }>('eth_getBlockByNumber', ['pending', false])).transactions.length;
  if (pendingBefore !== 0) fail(`${pendingBefore} transaction(s) already in the mempool before the launch`);
  await request(ctx.webhookAgent, ctx.webhookPort, { path: '/__stats' }); // start the webhook's records afresh
  if (ctx.proxyPort) await request(ctx.webhookAgent, ctx.proxyPort, { path: '/__proxy/records' });

  // 4. the launch: addLiquidityETH, then mine it (pending: leave it in the mempool)
  const launch = await sendLaunch(ctx, out, token, pending);
  if (!launch) {
    fail(`the launch transaction ${out.launchTx} failed`);
    return out;
  }

  // 5. the last buy in the node's mempool, and the service's summary line
  const limit = Date.now() + P.launchTimeoutSeconds * 1000;
  const last = await awaitLastBuy(ctx, token, ids[size - 1]!, limit);
  out.polls = last.polls;
  while (!ctx.serviceLog.launches.has(token) && Date.now() < limit) await sleep(5);
  out.cpuPercentOfOneCore = launch.meter.stop();
  const rounds = ctx.serviceLog.launches.get(token);
  out.retries = ctx.serviceLog.retries.get(token) ?? [];
  if (!rounds) {
    fail(`no "launch of ${token}" line from the intent service within ${P.launchTimeoutSeconds} s`);
    return out;
  }
  const first = rounds[0]!;
  out.service = first;
  const allSims = ctx.simLog.filter((x) => x.at >= launch.mineEnd && x.at <= first.at);
  // pending: the first simulation is the launch transaction's own (recognising it); the probe follows.
  out.recognitionSimMs = pending && allSims.length > 0 ? allSims[0]!.ms : null;
  const sims = pending ? allSims.slice(1) : allSims;
  out.simulations = {
    count: sims.length,
    ms: sims.map((x) => x.ms),
    runs: sims.map((x) => x.runs),
    fetches: sims.map((x) => x.fetches),
    totalMs: round(
      sims.reduce((a, x) => a + x.ms, 0),
      1,
    ),
    failed: sims.filter((x) => x.outcome !== 'ok').length,
  };
  out.sinceSeenMs = first.sinceSeenMs;
  out.roundMs = first.roundMs;
  out.mineStart = launch.mineStart;
  out.mineMs = launch.mineEnd - launch.mineStart;
  out.observedMs = last.observedAt === null ? null : last.observedAt - launch.mineEnd;
  out.observedPollSentMs = last.pollSentAt === null ? null : last.pollSentAt - launch.mineEnd;
  if (last.observedAt === null) fail(`the last buy (intent ${ids[size - 1]}, tx ${last.hash ?? 'never marked submitted'}) was not seen in the mempool`);

  const seenAt = await checkDetection(ctx, out, fail, token, launch, first, pending);
  // 6. the webhook's side of the round
  await checkWebhook(ctx, out, fail, size, seenAt, sims);
  // 7. chain side: every buy marked submitted, in the pending block
  const expectedTxs = await checkPendingBlock(ctx, out, fail, ids, first, pending);
  // 8. mine the buys (after BENCH_MINE_DELAY_MS: a block time); every intent must end `completed`
  const buysMineAt = await mineAndSettle(ctx, out, fail, { ids, first, pending, seenAt, expectedTxs, addHash: launch.addHash });
  await verifyOutcomes(ctx, out, fail, ids);
  // 9. the node's side, through the timing proxy (BENCH_RPC_TIMING=1)
  if (ctx.proxyPort && seenAt !== null && first.sinceSeenMs !== null)
    await recordRpcTimings(ctx, out, seenAt, seenAt + first.sinceSeenMs, buysMineAt, first.submitted);
  logLaunch(out, first, pending);
  return out;
}

async function deployToken(ctx: LaunchContext): Promise<string> {
  const { dex, deployer } = ctx;
  const token = (await mined(deployer, null, dex.erc20.bytecode + dex.erc20.iface.encodeDeploy([SUPPLY]).slice(2))).contractAddress!.toLowerCase();
  await mined(deployer, token, dex.erc20.iface.encodeFunctionData('approve', [dex.router, POOL_TOKENS]));
  return token;
}

/** Intent i: wallet i mod W, bribe BRIBE_BASE + (N - i); their ids in order, or what failed. */
async function createIntents(ctx: LaunchContext, out: LaunchRun, token: string, size: number, protocol: SigningProtocol): Promise<string[] | string> {
  const { wallets, key, webhookUrl } = ctx;
  const expiry = Math.floor(Date.now() / 1000) + 3600;
  const ids = new Array<string>(size);
  const create = await runLoad({
    port: ctx.gatewayPort,
    concurrency: P.createConcurrency,
    warmup: 0,
    total: size,
    maxMs: 120_000,
    make: (i) => ({
      method: 'POST',
      path: '/v1/intent',
      headers: { 'x-api-key': key },
      body: JSON.stringify({
        chainId: CHAIN_ID,
        wallet: wallets[i % wallets.length]!.address,
        tokenAddress: token,
        bribe: (BRIBE_BASE + BigInt(size - i)).toString(),
        buyAmount: BUY_AMOUNT.toString(),
        expiry,
        gasTip: '0',
        webhookUrl,
        webhookProtocol: protocol,
        ...(P.webhookBatch && protocol === 'tradeinfra' ? { webhookBatch: true } : {}),
      }),
      timeoutMs: 30_000,
    }),
    expect: 201,
    onSample: (res, i) => {
      try {
        ids[i] = (JSON.parse(res.body) as { id: string }).id;
      } catch {
        // counted below: an id missing
      }
    },
  });
  out.create = { seconds: create.seconds, reqPerSec: create.reqPerSec, p50Ms: create.p50Ms, errors: create.errors };
  // Array.from: a create that gave no id leaves a hole, which `some` alone would skip.
  if (create.errors > 0 || Array.from(ids).some((id) => typeof id !== 'string')) {
    return `creating ${size} intents: ${create.errors} errors (${JSON.stringify(create.errorsByKind)}), e.g. ${create.errorSamples[0]}`;
  }
  return ids;
}

/** Until the outbox is published (at most 30 s), then a few of the service's poll intervals. */
async function waitQuiet(ctx: LaunchContext, out: LaunchRun): Promise<void> {
  const quietUntil = Date.now() + 30_000;
  for (;;) {
    const { rows } = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM intent.outbox WHERE published_at IS NULL');
    if (rows[0]!.n === 0) break;
    if (Date.now() > quietUntil) {
      out.outboxBacklogAtLaunch = rows[0]!.n;
      break;
    }
    await sleep(20);
  }
  await sleep(Math.max(100, 3 * P.servicePollMs));
}

/** addLiquidityETH sent, and mined unless `pending`; null when the mined launch failed. */
async function sendLaunch(ctx: LaunchContext, out: LaunchRun, token: string, pending: boolean): Promise<SentLaunch | null> {
  const { dex, deployer, pids } = ctx;
  const deadline = Math.floor(Date.now() / 1000) + 3600;
  const headBefore = Number(BigInt(await rpc<string>('eth_blockNumber')));
  let meter = pending ? cpuMeter(pids) : null;
  const sendAt = Date.now();
  const addHash = await rpc<string>('eth_sendTransaction', [
    {
      from: deployer,
      to: dex.router,
      data: dex.routerIface.encodeFunctionData('addLiquidityETH', [token, POOL_TOKENS, 0n, 0n, deployer, deadline]),
      value: hex(POOL_ETH),
      gas: hex(10_000_000),
    },
  ]);
  meter ??= cpuMeter(pids);
  const mineStart = Date.now();
  if (!pending) await rpc('evm_mine');
  const mineEnd = pending ? sendAt : Date.now();
  out.launchTx = addHash;
  if (pending) {
    out.launchBlock = headBefore + 1;
  } else {
    const launchReceipt = await rpc<Receipt | null>('eth_getTransactionReceipt', [addHash]);
    if (!launchReceipt || launchReceipt.status !== '0x1') return null;
    out.launchBlock = Number(BigInt(launchReceipt.blockNumber));
  }
  return { addHash, sendAt, mineStart, mineEnd, meter };
}

/**
 * The last buy (the lowest bribe: the last intent created), looked for once the service has
 * logged its round: its hash once the service marks it submitted (the database), then the node's
 * mempool (eth_getTransactionByHash). Cheap on purpose: on hardhat a "pending" nonce or block
 * re-runs the whole mempool.
 */
async function awaitLastBuy(
  ctx: LaunchContext,
  token: string,
  lastId: string,
  limit: number,
): Promise<{ observedAt: number | null; pollSentAt: number | null; polls: number; hash: string | null }> {
  let polls = 0;
  let hash: string | null = null;
  // Not a query while the service works: the database and the node are on the measured path, and
  // the service's own line says when its round is over (a local read of its log, no I/O).
  while (!ctx.serviceLog.launches.has(token) && Date.now() < limit && !run.aborting) await sleep(2);
  for (;;) {
    if (run.aborting) throw new Error('aborted');
    const sent = Date.now();
    if (hash === null) {
      const { rows } = await ctx.db.query<{ tx_hash: string | null }>('SELECT tx_hash FROM intent.intents WHERE id = $1', [lastId]);
      hash = rows[0]?.tx_hash ?? null;
    }
    if (hash !== null) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [hash] });
      const res = await request(ctx.pollAgent, ctx.node.port, { method: 'POST', path: '/', body, timeoutMs: 30_000 });
      polls++;
      if ((JSON.parse(res.body) as { result: unknown }).result) return { observedAt: Date.now(), pollSentAt: sent, polls, hash };
    }
    const rounds = ctx.serviceLog.launches.get(token);
    // The round is over and the last buy is not in: it failed or was deferred (checked later).
    if (rounds && Date.now() - rounds[0]!.at > 1000) break;
    if (Date.now() > limit) break;
    await sleep(P.mempoolPollMs);
  }
  return { observedAt: null, pollSentAt: null, polls, hash };
}
