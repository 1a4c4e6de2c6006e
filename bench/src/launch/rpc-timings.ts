// The RPC timing proxy's records of one launch (BENCH_RPC_TIMING=1).
import type { ProxyRecord } from '@tradeinfra/test-support';
import { round } from '../harness/index.js';

export type { ProxyRecord };

/**
 * The intent service's requests on the measured path (seen → done), the simulation service's,
 * and what the executor sent while the buys waited for the next block (done → the bench's
 * evm_mine).
 */
export function rpcTimings(records: ProxyRecord[], seenAt: number, doneAt: number, buysMineAt: number, submitted: number) {
  const label = (r: ProxyRecord) =>
    Object.entries(r.methods)
      .map(([m, n]) => (n > 1 ? `${n}×${m}` : m))
      .join(' + ');
  const intent = records.filter((r) => r.client === 'intent');
  const onPath = intent.filter((r) => r.end >= seenAt && r.start <= doneAt + 1);
  const sim = records.filter((r) => r.client === 'sim' && r.end >= seenAt && r.start <= doneAt + 1);
  const stateReads = onPath.find((r) => (r.methods.eth_getBalance ?? 0) > 0);
  const submission = onPath.filter((r) => (r.methods.eth_sendRawTransaction ?? 0) > 0).pop();
  const waiting = intent.filter((r) => r.start > doneAt + 1 && r.start < buysMineAt);
  const calls = (list: ProxyRecord[], m: string) => list.reduce((a, r) => a + (r.methods[m] ?? 0), 0);
  const nodeMs = (list: ProxyRecord[]) =>
    round(
      list.reduce((a, r) => a + r.ms, 0),
      1,
    );
  return {
    onPath: onPath.map((r) => ({ atMs: r.start - seenAt, ms: r.ms, calls: label(r), bytes: r.bytes })),
    onPathNodeMs: nodeMs(onPath),
    stateReadsMs: stateReads ? stateReads.ms : null,
    stateReadsCalls: stateReads ? label(stateReads) : null,
    submissionMs: submission ? submission.ms : null,
    submissionCalls: submission ? submission.methods.eth_sendRawTransaction : null,
    simulationService: { requests: sim.length, calls: sim.reduce((a, r) => a + Object.values(r.methods).reduce((x, y) => x + y, 0), 0), nodeMs: nodeMs(sim) },
    whileWaiting: {
      ms: buysMineAt - doneAt,
      requests: waiting.length,
      sendRawTransactionCalls: calls(waiting, 'eth_sendRawTransaction'),
      resendsPerBuy: submitted ? round(calls(waiting, 'eth_sendRawTransaction') / submitted, 1) : null,
      getTransactionReceiptCalls: calls(waiting, 'eth_getTransactionReceipt'),
      getTransactionCountCalls: calls(waiting, 'eth_getTransactionCount'),
      nodeMs: nodeMs(waiting),
    },
  };
}
