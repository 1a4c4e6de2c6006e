// Step 4 of the payouts bench: mev.captured events published to JetStream, applied by a payout
// service started afterwards.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Figures, ROOT, cpuMeter, log, round, sleep } from '../harness/index.js';
import { JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { NatsConnection, connect as natsConnect } from '@nats-io/transport-node';
import { BENCH_SOURCE, INGEST_CHAIN, P, children, phaseLimitMs, run, secondsSince, step, uuidFloor } from './context.js';
import { withOthers } from './seed.js';

let natsClient: NatsConnection | null = null;
run.onCleanup(() => natsClient?.close());
// ---------------------------------------------------------------- ingestion

export function mevEvent(j: number, txHashes: string[]) {
  return {
    id: randomUUID(),
    chainId: INGEST_CHAIN,
    txHash: txHashes[Math.floor(j / P.entriesPerTx)],
    sourceId: BENCH_SOURCE,
    generatedBySourceId: j % 5 === 0 ? 'bench-gen-1' : null,
    asset: j % 3 === 0 ? 'USDC' : 'ETH',
    amount: j % 3 === 0 ? `${1 + (j % 1000)}.${String(j % 1_000_000).padStart(6, '0')}` : `0.${String(1 + ((j * 7919) % 999_999_999)).padStart(18, '0')}`,
    type: 'mev',
    time: new Date().toISOString(),
  };
}

/** Publishes the events to JetStream, `publishWindow` in flight, acks awaited per window. */
export async function publishAll(js: JetStreamClient, events: Array<{ id: string }>) {
  const subject = `mev.captured.${INGEST_CHAIN}`;
  const t0 = performance.now();
  let lastSeq = 0;
  let duplicates = 0;
  for (let from = 0; from < events.length; from += P.publishWindow) {
    if (run.aborting) throw new Error('aborted');
    if (secondsSince(t0) * 1000 > phaseLimitMs()) throw new Error(`publishing did not finish within ${P.phaseMaxSeconds} s`);
    const window = events.slice(from, from + P.publishWindow);
    const acks = await Promise.all(window.map((e) => js.publish(subject, JSON.stringify(e), { msgID: e.id, timeout: 30_000 })));
    for (const a of acks) {
      if (a.duplicate) duplicates++;
      if (a.seq > lastSeq) lastSeq = a.seq;
    }
  }
  const seconds = secondsSince(t0);
  return {
    events: events.length,
    seconds: round(seconds, 3),
    eventsPerSec: round(events.length / seconds, 0),
    window: P.publishWindow,
    lastStreamSeq: lastSeq,
    duplicates,
  };
}

export async function ingest({ db, nats, productEnv, payoutEntry }: any) {
  const result: Figures = {};
  const N = P.ingestEvents;
  natsClient = await natsConnect({ servers: nats.url, name: 'bench-payouts' });
  const js = jetstream(natsClient);
  const jsm = await jetstreamManager(natsClient);
  const stream = await jsm.streams.info('MEV_CAPTURE');
  result.streamBefore = { messages: stream.state.messages, lastSeq: stream.state.last_seq, storage: stream.config.storage };

  step('ingestion: stopping the payout service');
  await children.stop(payoutEntry);

  // Every entry the service makes from now on has a UUIDv7 id above this one; every seeded id is below.
  const floor = uuidFloor(Date.now() - 1);
  const newRows = async () => (await db.query('SELECT count(*)::int AS n FROM payout.entries WHERE id >= $1::uuid', [floor])).rows[0].n;
  if ((await newRows()) !== 0) throw new Error('entries above the id floor before publishing');

  const txHashes = Array.from({ length: Math.ceil(N / P.entriesPerTx) }, () => `0x${randomBytes(32).toString('hex')}`);
  const events = Array.from({ length: N }, (_, j) => mevEvent(j, txHashes));
  step(`ingestion: publishing ${N.toLocaleString('en-US')} MEV-capture events to mev.captured.${INGEST_CHAIN} (${P.publishWindow} in flight)`);
  const meterPub = cpuMeter({ ...(nats.pid ? { 'nats-server': nats.pid } : {}) });
  result.publish = await publishAll(js, events);
  result.publish.cpuPercentOfOneCore = withOthers(meterPub.stop());
  log(`  published in ${result.publish.seconds} s = ${result.publish.eventsPerSec.toLocaleString('en-US')} events/s (acked by JetStream)`);
  const consumerBefore = await jsm.consumers.info('MEV_CAPTURE', 'payout-service');
  result.consumerBeforeStart = { numPending: consumerBefore.num_pending, numAckPending: consumerBefore.num_ack_pending };
  if (consumerBefore.num_pending < N) throw new Error(`the payout-service consumer has ${consumerBefore.num_pending} pending messages, expected at least ${N}`);

  step('ingestion: starting the payout service and timing until every event is applied');
  const spawnedAt = Date.now();
  const tSpawn = performance.now();
  const entry = children.start('payout-service-ingest', process.execPath, [join(ROOT, 'apps/payout-service/dist/main.js')], {
    cwd: ROOT,
    env: productEnv,
    readyLine: /listening on/,
    readyTimeoutMs: 60_000,
  });
  const meter = cpuMeter({ 'payout-service': entry.child.pid, ...(nats.pid ? { 'nats-server': nats.pid } : {}) });
  let readyMs: any = null;
  entry.ready.then(() => (readyMs = performance.now() - tSpawn)).catch(() => {});
  const progress: any[] = [];
  let n = 0;
  let doneMs: any = null;
  let doneAt: any = null;
  let lastLog = 0;
  while (performance.now() - tSpawn < phaseLimitMs()) {
    if (run.aborting) throw new Error('aborted');
    children.assertAlive();
    n = await newRows();
    const ms = performance.now() - tSpawn;
    progress.push([round(ms, 0), n]);
    if (n >= N) {
      doneMs = ms;
      doneAt = Date.now();
      break;
    }
    if (ms - lastLog > 2000) {
      lastLog = ms;
      log(`  ${n.toLocaleString('en-US')} / ${N.toLocaleString('en-US')} applied after ${(ms / 1000).toFixed(1)} s`);
    }
    await sleep(100);
  }
  result.cpuPercentOfOneCore = withOthers(meter.stop());
  const span = (
    await db.query(
      `SELECT extract(epoch FROM min(created_at)) * 1000 AS first_ms, extract(epoch FROM max(created_at)) * 1000 AS last_ms,
              count(DISTINCT created_at)::int AS statements
         FROM payout.entries WHERE id >= $1::uuid`,
      [floor],
    )
  ).rows[0];
  result.events = N;
  result.applied = n;
  result.ingestBatch = productEnv.INGEST_BATCH ?? '500 (default)';
  result.serviceReadySeconds = readyMs === null ? null : round(readyMs / 1000, 2);
  result.timeBoundHit = doneMs === null;
  result.insertStatements = span.statements;
  if (doneMs !== null) {
    // created_at is the inserting statement's start (now()), on the same clock as Date.now().
    const firstInsertAt = Number(span.first_ms);
    result.startupSeconds = round((firstInsertAt - spawnedAt) / 1000, 2);
    result.applySeconds = round((doneAt - firstInsertAt) / 1000, 2);
    result.applyEventsPerSec = round(N / ((doneAt - firstInsertAt) / 1000), 0);
    result.spawnToDoneSeconds = round(doneMs / 1000, 2);
    result.spawnToDoneEventsPerSec = round(N / (doneMs / 1000), 0);
    result.lastInsertStartedBeforeDoneSeconds = round((doneAt - Number(span.last_ms)) / 1000, 2);
  }
  result.progress = progress;
  // Every message acked, none dead-lettered, nothing applied twice.
  let consumer = await jsm.consumers.info('MEV_CAPTURE', 'payout-service');
  for (let i = 0; i < 50 && consumer.num_ack_pending > 0; i++) {
    await sleep(100);
    consumer = await jsm.consumers.info('MEV_CAPTURE', 'payout-service');
  }
  result.consumerAfter = {
    numPending: consumer.num_pending,
    numAckPending: consumer.num_ack_pending,
    numRedelivered: consumer.num_redelivered,
    ackFloorStreamSeq: consumer.ack_floor.stream_seq,
  };
  result.deadLettered = (await jsm.streams.info('MEV_CAPTURE_DLQ')).state.messages;
  result.entriesCreated = await newRows();
  const problems: any[] = [];
  if (result.timeBoundHit) problems.push(`only ${n} of ${N} events applied within ${P.phaseMaxSeconds} s`);
  if (result.entriesCreated !== N) problems.push(`${result.entriesCreated} entries created for ${N} events`);
  if (result.deadLettered !== 0) problems.push(`${result.deadLettered} events dead-lettered`);
  if (consumer.num_pending !== 0 || consumer.num_ack_pending !== 0)
    problems.push(`consumer left with ${consumer.num_pending} pending, ${consumer.num_ack_pending} unacked`);
  result.errors = problems.length;
  result.problems = problems;
  if (doneMs !== null) {
    log(
      `  applied ${N.toLocaleString('en-US')} events in ${result.applySeconds} s from the first insert = ${result.applyEventsPerSec.toLocaleString('en-US')} events/s ` +
        `(start-up ${result.startupSeconds} s; spawn → all applied ${result.spawnToDoneSeconds} s = ${result.spawnToDoneEventsPerSec.toLocaleString('en-US')} events/s)`,
    );
  }
  for (const p of problems) log(`  PROBLEM: ${p}`);
  return { result, entry };
}

/** Closes the bench's NATS client (ingest opens it). */
export async function closeNats(): Promise<void> {
  await natsClient?.close().catch(() => {});
  natsClient = null;
}
