// The table printed on stdout, with the targets.
import { Figures, round, table } from '../harness/index.js';
import { SIGNING_BATCH_MAX } from '@tradeinfra/contracts';
import { CHAIN_ID, HARDFORK, P, Stats, TARGETS, startedAt, state } from './context.js';
import { LaunchResults } from './scenarios.js';

export function report(results: LaunchResults, totalSeconds: number, machine: Figures): { text: string; targets: Record<string, Figures>; errors: number } {
  const S = results.summary;
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  const rows: string[][] = [];
  const add = (label: string, pick: (s: Figures) => Stats | null | undefined, unit = '') => {
    const cells = [label];
    for (const s of S) {
      const v = pick(s);
      cells.push(v ? `${v.p50 ?? '–'} / ${v.p99 ?? '–'} / ${v.max ?? '–'}${unit}` : '–');
    }
    rows.push(cells);
  };
  add('seen → last buy submitted (service log) *', (s) => s.sinceSeenMs);
  const seenPending = (s: Figures) => s.mode === 'pending' || s.mode === 'relay' || s.mode === 'relay-merkle';
  if (S.some(seenPending)) {
    add('  pending: announced → recognised, stored (detect)', (s) => (seenPending(s) ? s.storedMs : null));
    add('    of which its simulation (service time) †', (s) => (seenPending(s) ? s.recognitionSimMs : null));
  }
  add('  claim → last buy submitted (service log)', (s) => s.roundMs);
  add('  seen → first signing request', (s) => s.seenToFirstSignRequestMs);
  add('    seen → the probe starts (simulation service)', (s) => s.probeStartMs);
  add('    the token probe (1-2 simulations of its own, service time) †', (s) => s.probeMs);
  add('    probe answered → first signing request', (s) => s.probeEndToFirstSignRequestMs);
  add('  first request → last signature (webhook)', (s) => s.signingWindowMs);
  add('  last signature → submitted', (s) => s.lastSignatureToSubmittedMs);
  if (S.some((s) => s.rpc)) {
    add("  node: wallets' nonces + balances batch **", (s) => s.rpc?.stateReadsMs);
    add('  node: last eth_sendRawTransaction **', (s) => s.rpc?.submissionMs);
    add('  node: all intent-service requests **', (s) => s.rpc?.onPathNodeMs);
    add("  node: the simulation service's reads **", (s) => s.rpc?.simulationNodeMs);
  }
  add('launch mined (pending: sent) → seen by the service', (s) => s.detectionMs);
  add('launch mined (pending: sent) → last buy in the mempool (bench)', (s) => s.mineToLastBuyInMempoolMs);
  add('webhook per request, p50 of each launch', (s) => s.webhookHandlerMs);
  add('webhook per request, p99 of each launch', (s) => s.webhookHandlerP99Ms);
  add('  of which signing, p50 of each launch', (s) => s.webhookSignMsP50);
  add('webhook signing CPU per launch', (s) => s.webhookSignCpuMsPerLaunch);
  add('pending block of the buys (eth_getBlockByNumber)', (s) => s.pendingBlockMs);
  add('evm_mine of the buys', (s) => s.mineBuysMs);
  add('buys mined → all outcomes recorded', (s) => s.outcomesRecordedMs);
  const headers = ['ms, p50 / p99 / max over launches', ...S.map((s) => `${s.mode}: ${s.size} intents × ${s.runs}`)];
  const counts = [
    'intents: submitted / failed / deferred / completed',
    ...S.map((s) => `${s.submitted} / ${s.failed} / ${s.deferred} / ${s.completed} of ${s.intents}`),
  ];
  const small = S.find((s) => s.mode === 'block' && s.size === P.small && s.runs > 0) ?? null;
  const pendingSmall = S.find((s) => s.mode === 'pending' && s.runs > 0) ?? null;
  const relaySmall = S.find((s) => s.mode === 'relay' && s.runs > 0) ?? null;
  const relayMerkle = S.find((s) => s.mode === 'relay-merkle' && s.runs > 0) ?? null;
  const targets = {
    smallP50: {
      ms: small?.sinceSeenMs.p50 ?? null,
      target: `<= ${TARGETS.smallP50Ms} ms`,
      met: small !== null && small.sinceSeenMs.p50 !== null && small.sinceSeenMs.p50 <= TARGETS.smallP50Ms,
    },
    smallP99: {
      ms: small?.sinceSeenMs.p99 ?? null,
      target: `<= ${TARGETS.smallP99Ms} ms`,
      met: small !== null && small.sinceSeenMs.p99 !== null && small.sinceSeenMs.p99 <= TARGETS.smallP99Ms,
    },
    ...(pendingSmall
      ? {
          pendingP50: {
            ms: pendingSmall.sinceSeenMs.p50,
            target: `<= ${TARGETS.pendingP50Ms} ms (aim 50)`,
            met: pendingSmall.sinceSeenMs.p50 !== null && pendingSmall.sinceSeenMs.p50 <= TARGETS.pendingP50Ms,
          },
        }
      : {}),
    ...(relaySmall
      ? {
          relayP50: {
            ms: relaySmall.sinceSeenMs.p50,
            target: `<= ${TARGETS.pendingP50Ms} ms (aim 50)`,
            met: relaySmall.sinceSeenMs.p50 !== null && relaySmall.sinceSeenMs.p50 <= TARGETS.pendingP50Ms,
          },
        }
      : {}),
    ...(relayMerkle
      ? {
          relayMerkleP50: {
            ms: relayMerkle.sinceSeenMs.p50,
            target: `<= ${TARGETS.pendingP50Ms} ms (aim 50)`,
            met: relayMerkle.sinceSeenMs.p50 !== null && relayMerkle.sinceSeenMs.p50 <= TARGETS.pendingP50Ms,
          },
        }
      : {}),
  };
  const errors = results.runs.reduce((a, r) => a + r.errors.length, 0);
  const lines: string[] = [];
  lines.push('');
  lines.push(`Launch execution benchmark — ${startedAt.toISOString()} — ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}`);
  lines.push(
    `chain: ${machine.chainNode.client} (hardhat ${machine.chainNode.hardhat}), chain id ${CHAIN_ID}, ${HARDFORK}, no automine; ${P.wallets} wallets; signing webhook: own process, ${P.signerThreads} signing thread(s)`,
  );
  lines.push(
    `service: LAUNCH_POLL_INTERVAL_MS=${P.servicePollMs}, SIGNER_TIMEOUT_MS=${P.signerTimeoutMs}, eth_sendRawTransaction one by one over ${P.ws ? "the node's WebSocket (WS_URL; block scenario: MEMPOOL_LAUNCHES=off)" : 'HTTP'}; warm-up launches per size: ${P.warmup} (not counted)`,
  );
  if (pendingSmall)
    lines.push(
      `pending scenario: the intent service restarted with MEMPOOL_LAUNCHES=${P.mempool}; the launch transaction is sent and left pending, one evm_mine then takes the launch and every buy`,
    );
  if (relaySmall)
    lines.push(
      "relay scenario: the same, the service restarted with RELAY_URLS (a relay on loopback that answers at once and puts each bundle into the node's pool in its order once the service logged its round): the buys go as one eth_sendBundle behind the launch",
    );
  if (relayMerkle)
    lines.push(
      `relay-merkle: the relay scenario's launches, in turn with today's protocol (relay: ${P.webhookBatch ? `batches of up to ${SIGNING_BATCH_MAX} buys a request` : 'one request per buy'}), with the intents' webhook speaking Merkle's signature webhook (one request per buy: {intentId, launch, tx, rawTx, hash} → {signature}, the buy built and checked by the service)`,
    );
  lines.push('');
  lines.push(table([...rows, counts], headers, 1));
  lines.push('');
  lines.push('* the figure: from the moment the intent service saw the launch block (its watcher read the head; pending: the node announced');
  lines.push('  the launch transaction, so recognising it is inside the figure) to the answer of its');
  lines.push("  eth_sendRawTransaction of the last buy (sent one after the other, in order; relay: the relay's answer to the bundle holding the last buy),");
  lines.push('  as the service logs it. The webhook answers at once, but its');
  lines.push('  signing (libsecp256k1, in its own process on the same cores) is on that path: see the webhook rows.');
  lines.push('  "launch mined → seen": seen_at recorded by the service minus the end of the bench\'s evm_mine (same clock); it depends on');
  lines.push(`  the service's poll interval (${P.servicePollMs} ms). "→ last buy in the mempool": once the service has logged its round, the bench`);
  lines.push(`  polls every ${P.mempoolPollMs} ms the mempool for the last buy (its hash from the database, then eth_getTransactionByHash): nothing`);
  lines.push("  of the bench's loads the database or the node while the service works; it includes detection and the poll's granularity.");
  const behind = S.filter(seenPending).map((s) => `${s.mode} ${s.probesBehindLaunch} of ${s.runs}`);
  if (behind.length > 0) {
    lines.push('† pending: the token probe runs behind the launch transaction, in the simulation that recognises it, when the launch is the');
    lines.push("  router's addLiquidityETH/addLiquidity and leaves the pool its calldata says; the probe row then has no simulation of its");
    lines.push(`  own (launches probed so: ${behind.join(', ')}).`);
  }
  if (S.some((s) => s.rpc)) {
    lines.push('** BENCH_RPC_TIMING=1: the services reached the node through a timing proxy (one more loopback hop per request); node');
    lines.push('   time = the proxy\'s request → answer. "all intent-service requests" sums those overlapping seen → submitted.');
  }
  lines.push('');
  if (small) {
    lines.push(
      `${small.size} intents, seen → last buy submitted: p50 ${small.sinceSeenMs.p50} ms (target <= ${TARGETS.smallP50Ms} ms): ${verdict(targets.smallP50.met)}; p99 ${small.sinceSeenMs.p99} ms (target <= ${TARGETS.smallP99Ms} ms): ${verdict(targets.smallP99.met)}${small.runs < 100 ? `  (over ${small.runs} launches p99 is the slowest one)` : ''}`,
    );
  }
  if (pendingSmall) {
    lines.push(
      `pending launch, ${pendingSmall.size} intents, seen → last buy submitted: p50 ${pendingSmall.sinceSeenMs.p50} ms (target <= ${TARGETS.pendingP50Ms} ms, aim 50): ${verdict(targets.pendingP50!.met)}; ` +
        `detect ${pendingSmall.storedMs.p50}, probe ${pendingSmall.probeMs.p50 ?? 'behind the launch'}, signing ${pendingSmall.signingWindowMs.p50}, last signature → submitted ${pendingSmall.lastSignatureToSubmittedMs.p50} ms (p50s)`,
    );
  }
  if (relaySmall) {
    lines.push(
      `pending launch via relay, ${relaySmall.size} intents, seen → last buy submitted: p50 ${relaySmall.sinceSeenMs.p50} ms (target <= ${TARGETS.pendingP50Ms} ms, aim 50): ${verdict(targets.relayP50!.met)}; ` +
        `detect ${relaySmall.storedMs.p50}, probe ${relaySmall.probeMs.p50 ?? 'behind the launch'}, signing ${relaySmall.signingWindowMs.p50}, last signature → submitted ${relaySmall.lastSignatureToSubmittedMs.p50} ms (p50s)`,
    );
  }
  if (relayMerkle) {
    lines.push(
      `pending launch via relay, Merkle's signature webhook, ${relayMerkle.size} intents, seen → last buy submitted: p50 ${relayMerkle.sinceSeenMs.p50} ms (target <= ${TARGETS.pendingP50Ms} ms, aim 50): ${verdict(targets.relayMerkleP50!.met)}; ` +
        `signing ${relayMerkle.signingWindowMs.p50}, last signature → submitted ${relayMerkle.lastSignatureToSubmittedMs.p50} ms (p50s); today's protocol in the same run: p50 ${relaySmall?.sinceSeenMs.p50 ?? '–'} ms`,
    );
  }
  for (const s of S) {
    const perRun = results.runs.filter((r) => r.size === s.size && r.mode === s.mode && !r.warmup).map((r) => r.sinceSeenMs ?? '–');
    lines.push(`${s.mode}: ${s.size} intents, seen → submitted per launch (ms): ${perRun.join(', ')}`);
  }
  for (const s of S) {
    lines.push(
      `CPU, % of one core, launch mined → service's summary line, ${s.size} intents (mean over launches): ${Object.entries<any>(s.cpuPercentOfOneCoreMean)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}; ` + `whole box ${s.wholeBoxBusyPercentMean ?? '?'}% busy (≈ ${s.othersPercentOfOneCoreMean ?? '?'}% of a core not accounted to these)`,
    );
  }
  for (const s of S) {
    if (s.rpc) {
      lines.push(
        `${s.size} intents: while the buys waited for the next block (${s.rpc.waitingMs.p50} ms p50), the executor sent each again ${s.rpc.resendsPerBuy.p50} times (p50; max ${s.rpc.resendsPerBuy.max}), ` +
          `${s.rpc.waitingNodeMs.p50} ms of node time; the simulation service made ${s.rpc.simulationRoundTrips.p50} round trips to the node per launch (p50)`,
      );
    }
  }
  for (const s of S) {
    if (Object.keys(s.notCompletedByStatus).length > 0) {
      lines.push(
        `${s.size} intents: not completed ${JSON.stringify(s.notCompletedByStatus)}; of these, ${s.boughtButNotCompleted} bought on chain all the same (receipt status 1)`,
      );
    }
  }
  const retries = results.runs.filter((r) => r.retries.length > 0);
  if (retries.length) lines.push(`rounds retried after a transient failure: ${retries.map((r) => `${r.label}: ${r.retries[0]}`).join(' | ')}`);
  const issues = Object.entries<any>(results.childLogs ?? {})
    .filter(([, v]) => v.warn + v.error > 0)
    .map(([k, v]) => `${k} ${v.error} error / ${v.warn} warn`);
  if (state.profileDir) lines.push(`CPU profiles of the intent and simulation services: ${state.profileDir}`);
  lines.push(`child logs: ${issues.length ? issues.join(', ') + ' (samples in the JSON)' : 'no warnings or errors'}`);
  if (errors > 0) {
    lines.push(`ERRORS: ${errors}:`);
    for (const r of results.runs) for (const e of r.errors) lines.push(`  ${r.label}: ${e}`);
  }
  lines.push(`total ${round(totalSeconds, 1)} s`);
  return { text: lines.join('\n'), targets, errors };
}
