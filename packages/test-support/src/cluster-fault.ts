import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { TestDatabase } from './database.js';
import { TestNatsCluster } from './nats-cluster.js';
import { freePort } from './nats-server.js';
import { eventually } from './wait.js';

/**
 * The product on a local 3-node NATS cluster under create load and MEV-capture publishing, with
 * nodes killed (kill -9) on a schedule; then what was lost, duplicated or reordered, and how
 * creates fared around each fault. `npm run bench:cluster` runs it long; the integration test
 * short. Needs the apps built (apps/<app>/dist).
 */

export interface FaultRunOptions {
  /** The repository root (apps/<app>/dist are started from there). */
  root: string;
  /** Concurrent create loops against the gateway. */
  creators: number;
  /** MEV-capture events published per second (one publisher, each awaiting its ack). */
  mevPerSecond: number;
  /** Intent-service replicas (the gateway and the payout service run one each). */
  intentReplicas: number;
  /** Load before the first fault, then between faults, in ms. */
  steadyMs: number;
  /** How long the INTENT_EVENTS leader stays down before it is restarted (and a partitioned node stays cut off). */
  downMs: number;
  /** Also cut a node off the network for downMs (network namespaces; skipped, and said so, without root). */
  partition?: boolean;
  log?: (line: string) => void;
}

export interface FaultWindow {
  fault: string;
  /** ms since the load started. */
  at: number;
  node: string;
  /** The client connections the node held when the fault hit (by name: gateway, intent-service-outbox, …). */
  clients: string[];
  /** Longest time without a successful create completing, from the fault to the next fault (or the end). */
  longestGapMs: number;
  /** Creates started in the first 10 s after the fault. */
  creates: number;
  p99CreateMs: number;
  maxCreateMs: number;
  /** Answers with 503 (each with Retry-After), and any other failure, in that window. */
  unavailable: number;
  otherFailures: number;
}

export interface FaultReport {
  durationMs: number;
  /** Why the partition step did not run, when it was asked for. */
  partitionSkipped?: string;
  creates: { acked: number; lost: number; p50Ms: number; p99Ms: number; retriedWithKey: number; idempotencyMismatches: number; cancelled: number };
  answers: { status503: number; status503WithoutRetryAfter: number; other: Record<string, number> };
  outbox: { events: number; lost: number; duplicated: number; intentsOutOfOrder: number };
  mevCapture: { acked: number; ledgerEntries: number; lost: number; duplicated: number; publishRetries: number };
  streams: Record<string, { replicas: number; leader?: string; current: boolean[] }>;
  faults: FaultWindow[];
}

interface CreateRecord {
  startedAt: number;
  endedAt: number;
  id: string | null;
  attempts: number;
}

const WALLET_TOKEN = '0x' + '11'.repeat(20);

class Processes {
  private readonly children: { name: string; child: ChildProcess; log: string[] }[] = [];

  start(root: string, name: string, entry: string, env: NodeJS.ProcessEnv, args: string[] = []): ChildProcess {
    const child = spawn(process.execPath, [join(root, entry), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log: string[] = [];
    for (const s of [child.stdout!, child.stderr!])
      s.on('data', (c: Buffer) => log.push(...c.toString().trimEnd().split('\n')) && log.splice(0, Math.max(0, log.length - 200)));
    this.children.push({ name, child, log });
    return child;
  }

  tail(name: string): string {
    return this.children
      .filter((c) => c.name === name)
      .map((c) => c.log.slice(-20).join('\n'))
      .join('\n');
  }

  anyExited(): string | null {
    const dead = this.children.find((c) => c.child.exitCode !== null || c.child.signalCode !== null);
    return dead ? `${dead.name} exited (${dead.child.exitCode ?? dead.child.signalCode}):\n${dead.log.slice(-20).join('\n')}` : null;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
          }),
      ),
    );
  }
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runClusterFaults(o: FaultRunOptions): Promise<FaultReport> {
  const say = o.log ?? (() => undefined);
  const isolated = o.partition === true && TestNatsCluster.canIsolate();
  // The servers' pings as infra/nats/cluster.conf sets them: a cut-off peer or client is dropped within seconds.
  const configDir = mkdtempSync(join(tmpdir(), 'fault-nats-'));
  writeFileSync(join(configDir, 'nats.conf'), 'ping_interval: "1s"\nping_max: 2\n');
  const cluster = await TestNatsCluster.start({ config: join(configDir, 'nats.conf'), isolated });
  const db = await TestDatabase.create('cluster');
  const procs = new Processes();
  let nc: NatsConnection | null = null;
  try {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...db.env,
      NATS_URL: cluster.url,
      NATS_STREAM_REPLICAS: '3',
      LOG_FORMAT: 'json',
      NO_COLOR: '1',
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_DB_POOL_SIZE: '4',
      INTENT_DB_POOL_SIZE: '6',
      PAYOUT_DB_POOL_SIZE: '4',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      CHAIN_IDS: '1',
      PAYOUT_CHAIN_IDS: '1',
    };
    for (const app of ['gateway', 'intent-service', 'payout-service']) {
      const r = spawnSync(process.execPath, [join(o.root, 'apps', app, 'dist', 'database', 'migrate.js')], { env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`migrating ${app}: ${r.stderr}`);
    }
    const key = spawnSync(process.execPath, [join(o.root, 'apps/gateway/dist/cli/apikey.js'), 'create', '--name', 'cluster-bench'], {
      env,
      encoding: 'utf8',
    }).stdout.trim();
    if (!key.startsWith('ti_')) throw new Error('could not create an API key');

    for (let i = 0; i < o.intentReplicas; i++) procs.start(o.root, 'intent-service', 'apps/intent-service/dist/main.js', env);
    procs.start(o.root, 'payout-service', 'apps/payout-service/dist/main.js', env);
    procs.start(o.root, 'gateway', 'apps/gateway/dist/main.js', env);
    const base = `http://127.0.0.1:${port}`;
    await eventually(
      'the services up',
      async () => {
        const dead = procs.anyExited();
        if (dead) throw new Error(dead);
        const res = await fetch(`${base}/health/services`).then(
          (r) => r.json() as Promise<{ services: Record<string, { state: string }> }>,
          () => null,
        );
        return res?.services['intent-service']?.state === 'up' && res.services['payout-service']?.state === 'up';
      },
      60_000,
      200,
    );
    await eventually(
      'the streams',
      async () => (await cluster.streamInfo('MEV_CAPTURE').catch(() => null)) && (await cluster.streamInfo('INTENT_EVENTS').catch(() => null)),
      30_000,
      200,
    );
    say('services up; load starts');

    // ---- load ----
    const t0 = performance.now();
    const now = () => performance.now() - t0;
    let stopping = false;
    const creates: CreateRecord[] = [];
    const answers = { status503: 0, status503WithoutRetryAfter: 0, other: {} as Record<string, number>, failures: [] as { at: number; kind: string }[] };
    let idempotencyMismatches = 0;
    let retriedWithKey = 0;
    let cancelled = 0;

    const post = async (
      path: string,
      body: unknown,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; json: any; retryAfter: string | null } | { error: string }> => {
      try {
        const res = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        return { status: res.status, json: text ? JSON.parse(text) : null, retryAfter: res.headers.get('retry-after') };
      } catch (err) {
        return { error: (err as Error).name };
      }
    };

    /** One request, retried on 503 (after its Retry-After) and on failures, as a careful client does. */
    const retrying = async (path: string, body: unknown, headers: Record<string, string>, ok: (status: number) => boolean) => {
      for (let attempt = 1; ; attempt++) {
        const r = await post(path, body, headers);
        if ('status' in r && ok(r.status)) return { r, attempt };
        const kind = 'error' in r ? r.error : r.status === 503 ? '503' : String(r.status);
        if (kind === '503') {
          answers.status503++;
          if (!(r as { retryAfter: string | null }).retryAfter) answers.status503WithoutRetryAfter++;
        } else {
          answers.other[kind] = (answers.other[kind] ?? 0) + 1;
        }
        answers.failures.push({ at: now(), kind });
        if (stopping && attempt > 60) return { r, attempt };
        if ('status' in r && r.status >= 400 && r.status < 500) return { r, attempt };
        await sleep(kind === '503' ? Math.min(1_000, Number((r as { retryAfter: string | null }).retryAfter ?? 1) * 1_000) : 250);
      }
    };

    const creator = async () => {
      while (!stopping) {
        const idempotencyKey = randomUUID();
        const body = {
          chainId: 1,
          wallet: '0x' + randomBytes(20).toString('hex'),
          tokenAddress: WALLET_TOKEN,
          bribe: '1000',
          buyAmount: '1000000000000000000',
          expiry: Math.floor(Date.now() / 1000) + 3600,
        };
        const record: CreateRecord = { startedAt: now(), endedAt: 0, id: null, attempts: 0 };
        const { r, attempt } = await retrying('/v1/intent', body, { 'idempotency-key': idempotencyKey }, (s) => s === 201 || s === 200);
        record.endedAt = now();
        record.attempts = attempt;
        if (!('status' in r) || (r.status !== 201 && r.status !== 200)) continue;
        record.id = r.json.id;
        creates.push(record);
        // A create that needed retries, and one in ten: the same key again must give the same intent.
        if (attempt > 1 || creates.length % 10 === 0) {
          retriedWithKey++;
          const again = await retrying('/v1/intent', body, { 'idempotency-key': idempotencyKey }, (s) => s === 201 || s === 200);
          if (!('status' in again.r) || again.r.json?.id !== record.id) idempotencyMismatches++;
        }
        // One in four is cancelled: its events are created, then cancelled, in that order.
        if (creates.length % 4 === 0) {
          const c = await retrying(`/v1/intent/${record.id}/cancel`, {}, {}, (s) => s === 200 || s === 409);
          if ('status' in c.r && c.r.status === 200) cancelled++;
        }
      }
    };

    // The MEV-capture publisher: each event published until JetStream acks it (same Nats-Msg-Id on every try).
    nc = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 5_000, name: 'mev-capture' });
    const js: JetStreamClient = jetstream(nc);
    const mevAcked: string[] = [];
    let publishRetries = 0;
    const publisher = async () => {
      const txHash = '0x' + randomBytes(32).toString('hex');
      while (!stopping) {
        const started = performance.now();
        const event = {
          id: randomUUID(),
          chainId: 1,
          txHash,
          sourceId: 'cluster-bench',
          asset: 'ETH',
          amount: '0.000000000000000001',
          type: 'mev',
          time: new Date().toISOString(),
        };
        for (let attempt = 0; ; attempt++) {
          try {
            await js.publish('mev.captured.1', JSON.stringify(event), { msgID: event.id, timeout: 2_000 });
            mevAcked.push(event.id);
            break;
          } catch {
            publishRetries++;
            if (attempt > 100) break;
            await sleep(250);
          }
        }
        await sleep(Math.max(0, 1000 / o.mevPerSecond - (performance.now() - started)));
      }
    };

    const running = [...Array.from({ length: o.creators }, creator), publisher()];

    // ---- faults ----
    const faults: { fault: string; at: number; node: string; clients: string[] }[] = [];
    const fault = async (name: string, node: number, action: () => Promise<void>) => {
      const clients = cluster.isRunning(node) ? await cluster.clientsOf(node).catch(() => []) : [];
      faults.push({ fault: name, at: now(), node: cluster.nodeName(node), clients });
      say(`${name}: ${cluster.nodeName(node)} at ${Math.round(now())} ms`);
      await action();
    };
    await sleep(o.steadyMs);
    const intentLeader = await cluster.streamLeader('INTENT_EVENTS');
    await fault('kill -9 the INTENT_EVENTS leader', intentLeader, () => cluster.kill(intentLeader));
    await sleep(o.downMs);
    await fault('restart it', intentLeader, async () => {
      await cluster.restart(intentLeader);
      await cluster.waitHealthy();
    });
    await sleep(o.steadyMs);
    if (isolated) {
      const cut = await cluster.streamLeader('INTENT_EVENTS');
      await fault('cut the INTENT_EVENTS leader off the network', cut, async () => cluster.partition(cut));
      await sleep(o.downMs);
      await fault('reconnect it', cut, async () => {
        cluster.heal(cut);
        await cluster.waitHealthy();
      });
      await sleep(o.steadyMs);
    }
    const mevLeader = await cluster.streamLeader('MEV_CAPTURE');
    await fault('kill -9 the MEV_CAPTURE leader for good', mevLeader, () => cluster.kill(mevLeader));
    await sleep(o.steadyMs);
    stopping = true;
    await Promise.all(running);
    const durationMs = now();
    say(`load stopped after ${Math.round(durationMs)} ms: ${creates.length} creates, ${mevAcked.length} capture events acked`);

    // ---- what arrived ----
    const admin = await db.admin();
    try {
      await eventually(
        'the outbox drained',
        async () => (await admin.query('SELECT count(*)::int AS n FROM intent.outbox WHERE published_at IS NULL')).rows[0].n === 0,
        60_000,
        250,
      );
      await eventually(
        'every acked capture event in the ledger',
        async () =>
          (await admin.query('SELECT count(*)::int AS n FROM payout.entries WHERE event_id = ANY($1::uuid[])', [mevAcked])).rows[0].n === mevAcked.length,
        60_000,
        250,
      ).catch(() => undefined);

      const ackedIds = creates.map((c) => c.id!);
      const found = (await admin.query('SELECT count(*)::int AS n FROM intent.intents WHERE id = ANY($1::uuid[])', [ackedIds])).rows[0].n as number;
      const ledger = (
        await admin.query('SELECT event_id::text AS id, count(*)::int AS n FROM payout.entries WHERE event_id = ANY($1::uuid[]) GROUP BY event_id', [mevAcked])
      ).rows as { id: string; n: number }[];

      // Every outbox event in INTENT_EVENTS once, each intent's in outbox order.
      const outbox = (await admin.query("SELECT id::text AS id, intent->>'id' AS intent FROM intent.outbox ORDER BY seq")).rows as {
        id: string;
        intent: string;
      }[];
      const streamed = await readStream(nc, 'INTENT_EVENTS');
      const seen = new Map<string, number>();
      for (const e of streamed) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
      const order = (list: { id: string; intent: string }[]) => {
        const byIntent = new Map<string, string[]>();
        for (const e of list) byIntent.set(e.intent, [...(byIntent.get(e.intent) ?? []), e.id]);
        return byIntent;
      };
      const expected = order(outbox);
      const actual = order(streamed.filter((e, i) => streamed.findIndex((x) => x.id === e.id) === i));
      let outOfOrder = 0;
      for (const [intent, ids] of expected) if ((actual.get(intent) ?? []).join() !== ids.join()) outOfOrder++;

      const window = (from: number, to: number) => {
        const done = creates
          .map((c) => c.endedAt)
          .filter((t) => t >= from && t <= to)
          .sort((a, b) => a - b);
        let gap = 0;
        let last = from;
        for (const t of [...done, to]) {
          gap = Math.max(gap, t - last);
          last = t;
        }
        return gap;
      };
      const windows: FaultWindow[] = faults.map((f, i) => {
        const until = i + 1 < faults.length ? faults[i + 1]!.at : durationMs;
        const started = creates.filter((c) => c.startedAt >= f.at && c.startedAt <= f.at + 10_000).map((c) => c.endedAt - c.startedAt);
        const failures = answers.failures.filter((x) => x.at >= f.at && x.at <= until);
        return {
          ...f,
          at: Math.round(f.at),
          longestGapMs: Math.round(window(f.at, until)),
          creates: started.length,
          p99CreateMs: percentile(started, 99),
          maxCreateMs: percentile(started, 100),
          unavailable: failures.filter((x) => x.kind === '503').length,
          otherFailures: failures.filter((x) => x.kind !== '503').length,
        };
      });
      const streams: FaultReport['streams'] = {};
      for (const name of ['INTENT_EVENTS', 'MEV_CAPTURE', 'MEV_CAPTURE_DLQ']) {
        const info = await cluster.streamInfo(name).catch(() => null);
        if (info) streams[name] = { replicas: info.replicas, leader: info.leader, current: info.peers.map((p) => p.current) };
      }
      const latencies = creates.map((c) => c.endedAt - c.startedAt);
      return {
        durationMs: Math.round(durationMs),
        ...(o.partition && !isolated ? { partitionSkipped: 'network namespaces need root (ip netns)' } : {}),
        creates: {
          acked: creates.length,
          lost: creates.length - found,
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
          retriedWithKey,
          idempotencyMismatches,
          cancelled,
        },
        answers: { status503: answers.status503, status503WithoutRetryAfter: answers.status503WithoutRetryAfter, other: answers.other },
        outbox: {
          events: outbox.length,
          lost: outbox.filter((e) => !seen.has(e.id)).length,
          duplicated: [...seen.values()].filter((n) => n > 1).length,
          intentsOutOfOrder: outOfOrder,
        },
        mevCapture: {
          acked: mevAcked.length,
          ledgerEntries: ledger.reduce((s, r) => s + r.n, 0),
          lost: mevAcked.length - ledger.length,
          duplicated: ledger.filter((r) => r.n > 1).length,
          publishRetries,
        },
        streams,
        faults: windows,
      };
    } finally {
      await admin.end();
    }
  } finally {
    await nc?.close().catch(() => undefined);
    await procs.stop();
    await cluster.dispose();
    await db.drop().catch(() => undefined);
    rmSync(configDir, { recursive: true, force: true });
  }
}

/** Every message of a stream, in stream order (read by sequence): its event id and intent id. */
async function readStream(nc: NatsConnection, stream: string): Promise<{ id: string; intent: string }[]> {
  const jsm = await jetstreamManager(nc);
  const { first_seq: first, last_seq: last } = (await jsm.streams.info(stream)).state;
  const out: ({ id: string; intent: string } | null)[] = [];
  for (let from = first; from <= last && last > 0; from += 50) {
    const seqs = Array.from({ length: Math.min(50, last - from + 1) }, (_, i) => from + i);
    const messages = await Promise.all(seqs.map((seq) => jsm.streams.getMessage(stream, { seq }).catch(() => null)));
    for (const m of messages) {
      const e = m?.json<{ id: string; intentId: string }>();
      out.push(e ? { id: e.id, intent: e.intentId } : null);
    }
  }
  return out.filter((e): e is { id: string; intent: string } => e !== null);
}
