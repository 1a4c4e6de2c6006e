// One launch (launch-once.ts), after the last buy reached the mempool: what the service recorded,
// the webhook's side, the pending block, mining the buys and every intent's outcome.
import { SIGNING_BATCH_MAX } from '@tradeinfra/contracts';
import { log, request, round, runLoad, sleep, type Figures } from '../harness/index.js';
import { CHAIN_ID, P, rpc, stats, type Receipt } from './context.js';
import type { LaunchContext, LaunchRun, SentLaunch } from './launch-once.js';
import { rpcTimings, type ProxyRecord } from './rpc-timings.js';
import type { ServiceRound, SimulationDone } from './service-log.js';

type Fail = (msg: string) => void;

interface Block {
  number: string;
  gasUsed: string;
  transactions: string[];
}

/** The launch as the service recorded it (pending: its transaction stored); when it was seen (unix ms), or null. */
export async function checkDetection(
  ctx: LaunchContext,
  out: LaunchRun,
  fail: Fail,
  token: string,
  launch: SentLaunch,
  first: ServiceRound,
  pending: boolean,
): Promise<number | null> {
  if (pending) {
    // The launch as the mempool watcher stored it: when its transaction was announced, and how
    // long recognising it took (simulated on the head through the simulation service).
    const { rows } = await ctx.db.query<{ seen_at: Date | null; tx_hash: string }>(
      'SELECT seen_at, tx_hash FROM intent.pending_launches WHERE chain_id = $1 AND token = $2',
      [CHAIN_ID, token],
    );
    const seenAt = rows[0]?.seen_at ? rows[0].seen_at.getTime() : null;
    out.detectionMs = seenAt === null ? null : seenAt - launch.mineEnd;
    out.storedMs = ctx.serviceLog.stored.get(token)?.storedMs ?? null;
    if (rows[0]?.tx_hash !== launch.addHash) fail(`the service stored pending launch ${rows[0]?.tx_hash ?? 'none'}, the launch is ${launch.addHash}`);
    if (first.seen !== 'transaction') fail(`the round acted on the launch ${first.seen ?? 'unknown'}, not on its pending transaction`);
    return seenAt;
  }
  const { rows } = await ctx.db.query<{ seen_at: Date | null; block_number: string }>(
    'SELECT seen_at, detected_at, block_number::text FROM intent.launches WHERE chain_id = $1 AND token = $2',
    [CHAIN_ID, token],
  );
  const seenAt = rows[0]?.seen_at ? rows[0].seen_at.getTime() : null;
  out.detectionMs = seenAt === null ? null : seenAt - launch.mineEnd;
  out.detectedBlock = rows[0] ? Number(rows[0].block_number) : null;
  if (out.detectedBlock !== out.launchBlock) fail(`the service recorded the launch in block ${out.detectedBlock}, it was mined in ${out.launchBlock}`);
  return seenAt;
}

/** The webhook's records of the round: what each request took, and the phases of the round. */
export async function checkWebhook(ctx: LaunchContext, out: LaunchRun, fail: Fail, size: number, seenAt: number | null, sims: SimulationDone[]): Promise<void> {
  const ws = JSON.parse((await request(ctx.webhookAgent, ctx.webhookPort, { path: '/__stats' })).body) as Figures;
  const recs = (ws.records as Figures[]).filter((r) => r.status === 200);
  out.webhook = {
    requests: ws.requests,
    hmacFailures: ws.hmacFailures,
    signErrors: ws.signErrors,
    handlerMs: stats(recs.map((r) => r.ms)),
    signMs: stats(recs.map((r) => r.signMs)),
    queueMs: stats(recs.map((r) => r.waitMs)),
    signCpuMsTotal: round(
      recs.reduce((a, r) => a + ((r.signMs as number | undefined) ?? 0), 0),
      1,
    ),
    firstArrive: recs.length ? Math.min(...recs.map((r) => r.arrive as number)) : null,
    lastDone: recs.length ? Math.max(...recs.map((r) => r.done as number)) : null,
  };
  if (ws.hmacFailures > 0) fail(`${ws.hmacFailures} signing request(s) failed the webhook's HMAC check`);
  // One request per buy (Merkle's protocol, or ours without batches), or (webhookBatch) one per SIGNING_BATCH_MAX buys.
  const requests = P.webhookBatch && out.protocol === 'tradeinfra' ? Math.ceil(size / SIGNING_BATCH_MAX) : size;
  if (ws.requests !== requests) fail(`the webhook got ${ws.requests} signing requests for ${size} intents (expected ${requests})`);
  if (seenAt !== null && out.webhook.firstArrive !== null && out.sinceSeenMs !== null) {
    const doneAt = seenAt + (out.sinceSeenMs as number);
    out.phases = {
      seenToFirstSignRequestMs: out.webhook.firstArrive - seenAt,
      // pending: the transaction announced → recognised as a launch and stored (the detect step).
      storedMs: out.storedMs ?? null,
      // The simulation service's own start and end of the probe (its log line's time minus the duration).
      probeStartMs: sims.length ? round(sims[0]!.at - sims[0]!.ms - seenAt, 1) : null,
      probeEndMs: sims.length ? sims[sims.length - 1]!.at - seenAt : null,
      signingWindowMs: out.webhook.lastDone - out.webhook.firstArrive,
      lastSignatureToSubmittedMs: doneAt - out.webhook.lastDone,
    };
  }
}

/** Every buy marked submitted, in the pending block; the transactions the buys' block must hold. */
export async function checkPendingBlock(ctx: LaunchContext, out: LaunchRun, fail: Fail, ids: string[], first: ServiceRound, pending: boolean): Promise<number> {
  const size = ids.length;
  const { rows: phases } = await ctx.db.query<{ status: string; phase: string; n: number }>(
    `SELECT status, coalesce(phase, '') AS phase, count(*)::int AS n FROM intent.intents WHERE id = ANY($1::uuid[]) GROUP BY 1, 2`,
    [ids],
  );
  out.rowsAfterRound = Object.fromEntries(phases.map((r) => [`${r.status}${r.phase ? `/${r.phase}` : ''}`, r.n]));
  const submittedRows = phases.filter((r) => r.status === 'pending' && r.phase === 'submitted').reduce((a, r) => a + r.n, 0);
  const t0 = performance.now();
  const pendingBlock = await rpc<Block>('eth_getBlockByNumber', ['pending', false]);
  out.pendingBlockMs = round(performance.now() - t0, 1);
  out.pendingBlockTxs = pendingBlock.transactions.length;
  if (first.submitted !== size || first.failed !== 0 || first.deferred !== 0)
    fail(`round: ${first.submitted} submitted, ${first.failed} failed, ${first.deferred} deferred of ${size}`);
  if (submittedRows !== first.submitted) fail(`${submittedRows} intents marked submitted in the database, the log says ${first.submitted}`);
  const expectedTxs = first.submitted + (pending ? 1 : 0); // pending: the launch, then the buys
  if (out.pendingBlockTxs !== expectedTxs)
    fail(`the pending block holds ${out.pendingBlockTxs} transactions, ${first.submitted} were submitted${pending ? ' behind the launch' : ''}`);
  return expectedTxs;
}

/**
 * Mines the buys (after BENCH_MINE_DELAY_MS: a block time), checks their block, then mines the
 * blocks later rounds wait for until no intent is pending; when the buys were mined (unix ms).
 */
export async function mineAndSettle(
  ctx: LaunchContext,
  out: LaunchRun,
  fail: Fail,
  {
    ids,
    first,
    pending,
    seenAt,
    expectedTxs,
    addHash,
  }: { ids: string[]; first: ServiceRound; pending: boolean; seenAt: number | null; expectedTxs: number; addHash: string },
): Promise<number> {
  if (P.mineDelayMs > 0) await sleep(Math.max(0, (seenAt ?? 0) + (first.sinceSeenMs ?? 0) + P.mineDelayMs - Date.now()));
  const buysStart = performance.now();
  const buysMineAt = Date.now();
  await rpc('evm_mine');
  out.mineBuysMs = round(performance.now() - buysStart, 1);
  const buysBlock = await rpc<Block>('eth_getBlockByNumber', ['latest', false]);
  out.buysBlock = { number: Number(BigInt(buysBlock.number)), txs: buysBlock.transactions.length, gasUsed: Number(BigInt(buysBlock.gasUsed)) };
  if (out.buysBlock.number !== first.targetBlock) fail(`the buys were mined in block ${out.buysBlock.number}, the target was ${first.targetBlock}`);
  if (out.buysBlock.txs !== expectedTxs)
    fail(`the buys' block holds ${out.buysBlock.txs} transactions, ${first.submitted} were submitted${pending ? ' behind the launch' : ''}`);
  if (pending) {
    // The launch block itself: the launch first, then every buy.
    if (buysBlock.transactions[0] !== addHash) fail(`the block's first transaction is ${buysBlock.transactions[0]}, not the launch ${addHash}`);
    if (out.buysBlock.number !== out.launchBlock) fail(`the launch was expected in block ${out.launchBlock}, the buys were mined in ${out.buysBlock.number}`);
    const launchReceipt = await rpc<Receipt | null>('eth_getTransactionReceipt', [addHash]);
    if (!launchReceipt || launchReceipt.status !== '0x1') fail(`the launch transaction ${addHash} failed`);
  }
  const settleStart = performance.now();
  const settleLimit = Date.now() + P.launchTimeoutSeconds * 1000;
  // Buys of later rounds (intents deferred behind a wallet's failed signing) wait for blocks of
  // their own: mine one whenever a submitted buy targets a block after the head.
  out.extraBlocks = 0;
  let head: number = out.buysBlock.number;
  for (;;) {
    const { rows } = await ctx.db.query<{ n: number; later: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE phase = 'submitted' AND target_block > $2)::int AS later
       FROM intent.intents WHERE id = ANY($1::uuid[]) AND status = 'pending'`,
      [ids, head],
    );
    if (rows[0]!.n === 0) break;
    if (Date.now() > settleLimit) {
      fail(`${rows[0]!.n} intents still pending ${P.launchTimeoutSeconds} s after the buys were mined`);
      break;
    }
    if (rows[0]!.later > 0 && out.extraBlocks < 10) {
      await rpc('evm_mine');
      head = Number(BigInt(await rpc<string>('eth_blockNumber')));
      out.extraBlocks++;
    }
    await sleep(20);
  }
  out.outcomesRecordedMs = round(performance.now() - settleStart, 1);
  return buysMineAt;
}

/** Every intent through the API: `completed` with a txHash; what the chain says about the others. */
export async function verifyOutcomes(ctx: LaunchContext, out: LaunchRun, fail: Fail, ids: string[]): Promise<void> {
  const size = ids.length;
  const byStatus: Record<string, number> = {};
  const notCompleted: Array<{ id: string; status: string; txHash: string | null }> = [];
  const verify = await runLoad({
    port: ctx.gatewayPort,
    concurrency: P.createConcurrency,
    warmup: 0,
    total: size,
    maxMs: 120_000,
    make: (i) => ({ path: `/v1/intent/${ids[i]}`, headers: { 'x-api-key': ctx.key }, timeoutMs: 30_000 }),
    expect: 200,
    check: (res) => {
      const body = JSON.parse(res.body) as { id: string; status: string; statusReason?: string | null; txHash?: string | null };
      const k = `${body.status}${body.statusReason ? ` (${body.statusReason})` : ''}`;
      byStatus[k] = (byStatus[k] ?? 0) + 1;
      if (body.status !== 'completed') {
        notCompleted.push({ id: body.id, status: k, txHash: body.txHash ?? null });
        return `intent ${body.id}: ${k}`;
      }
      if (!/^0x[0-9a-f]{64}$/.test(body.txHash ?? '')) return `intent ${body.id}: completed without a txHash`;
      return null;
    },
  });
  out.outcomes = byStatus;
  out.completed = byStatus.completed ?? 0;
  if (verify.errors > 0) fail(`${verify.errors} of ${size} intents not completed through the API: ${JSON.stringify(byStatus)}, e.g. ${verify.errorSamples[0]}`);
  if (notCompleted.length === 0) return;
  // What the chain says about them: a buy mined with status 1 should never end as anything but `completed`.
  const hashes = notCompleted.filter((n) => n.txHash);
  const receipts = hashes.length ? await Promise.all(hashes.map((n) => rpc<Receipt | null>('eth_getTransactionReceipt', [n.txHash]))) : [];
  const minedOk: Record<string, number> = {};
  hashes.forEach((n, i) => {
    const r = receipts[i];
    if (r && r.status === '0x1') minedOk[n.status] = (minedOk[n.status] ?? 0) + 1;
  });
  out.notCompleted = {
    byStatus: Object.fromEntries(Object.entries(byStatus).filter(([k]) => k !== 'completed')),
    boughtOnChainAnyway: minedOk,
    sample: notCompleted.slice(0, 3),
  };
  const wrong = Object.values(minedOk).reduce((a, b) => a + b, 0);
  if (wrong > 0)
    fail(`${wrong} of them were bought on chain all the same (receipt status 1 in block ${out.buysBlock.number}): recorded ${JSON.stringify(minedOk)}`);
}

/** The timing proxy's records of the launch (BENCH_RPC_TIMING=1). */
export async function recordRpcTimings(
  ctx: LaunchContext,
  out: LaunchRun,
  seenAt: number,
  doneAt: number,
  buysMineAt: number,
  submitted: number,
): Promise<void> {
  const { records } = JSON.parse((await request(ctx.webhookAgent, ctx.proxyPort!, { path: '/__proxy/records' })).body) as { records: ProxyRecord[] };
  out.rpc = rpcTimings(records, seenAt, doneAt, buysMineAt, submitted);
}

/** One line on stderr per launch. */
export function logLaunch(out: LaunchRun, first: ServiceRound, pending: boolean): void {
  const bits = [
    `service: ${first.sinceSeenMs} ms after seen (round ${first.roundMs} ms${pending ? `, launch recognised ${out.storedMs ?? '–'} ms after announced` : ''})`,
    `mine → last buy in mempool ${out.observedMs ?? '–'} ms`,
    `detection ${out.detectionMs ?? '–'} ms`,
    out.phases
      ? `seen → 1st sign ${out.phases.seenToFirstSignRequestMs} (probe ${out.simulations.ms.join(' + ')} ms, miss fetches ${out.simulations.fetches.join(' + ')}), signing ${out.phases.signingWindowMs}, → submitted ${out.phases.lastSignatureToSubmittedMs} ms`
      : null,
    out.rpc
      ? `node: state reads ${out.rpc.stateReadsMs ?? '–'}, submission ${out.rpc.submissionMs ?? '–'} ms, ${out.rpc.whileWaiting.sendRawTransactionCalls} resends in ${out.rpc.whileWaiting.ms} ms`
      : null,
    `webhook p50 ${out.webhook.handlerMs.p50} ms`,
    `${out.completed}/${out.size} completed`,
  ].filter(Boolean);
  log(`  ${out.label}: ${bits.join('; ')}${out.errors.length ? `; ${out.errors.length} error(s)` : ''}`);
}
