// Helpers for the benchmarks (intents, simulate, payouts): a run's life (BenchRun), free ports,
// child processes, a keep-alive HTTP load generator with latency percentiles, and per-process
// CPU accounting from /proc.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { createServer } from 'node:net';
import { dirname, join, relative } from 'node:path';
import pg from 'pg';
import { adminConfig } from '../infra/postgres/bootstrap.mjs';
import { natsReachable } from '../scripts/lib.mjs';

export function log(line) {
  process.stderr.write(`\x1b[35m◆\x1b[0m ${line}\n`);
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function envInt(name, fallback, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The nats-server binary: NATS_SERVER_BIN, else the first on PATH, else /usr/sbin/nats-server; null if none. */
export function natsServerBinary() {
  const candidates = [
    process.env.NATS_SERVER_BIN,
    ...(process.env.PATH ?? '').split(':').filter(Boolean).map((d) => join(d, 'nats-server')),
    '/usr/sbin/nats-server',
  ];
  return candidates.find((c) => c && existsSync(c)) ?? null;
}

// ---------------------------------------------------------------- child processes

/**
 * Children started by the bench. Each is a direct child (no npx / shell in between), so the
 * pid we signal is the process that does the work. Output goes to a log file.
 */
export class Children {
  constructor(logDir) {
    this.logDir = logDir;
    this.list = [];
  }

  /**
   * Starts `command args`; resolves once `readyLine` (a RegExp) appears on stdout/stderr, or
   * immediately when no readyLine is given. Rejects when the process exits first.
   */
  start(name, command, args, { env, cwd, readyLine = null, readyTimeoutMs = 20_000 } = {}) {
    const logPath = join(this.logDir, `${name}.log`);
    const out = createWriteStream(logPath);
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const entry = { name, child, logPath, exited: null, expectedExit: false };
    this.list.push(entry);
    let seen = '';
    const ready = new Promise((resolve, reject) => {
      const timer = readyLine
        ? setTimeout(() => reject(new Error(`${name} did not become ready within ${readyTimeoutMs} ms; log: ${logPath}\n${tail(seen)}`)), readyTimeoutMs)
        : null;
      const onData = (chunk) => {
        out.write(chunk);
        if (readyLine && seen.length < 200_000) {
          seen += chunk.toString();
          if (readyLine.test(seen)) {
            clearTimeout(timer);
            resolve();
          }
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`${name} could not be started: ${err.message}`));
      });
      child.once('exit', (code, signal) => {
        entry.exited = signal ?? code;
        clearTimeout(timer);
        out.end();
        if (!entry.expectedExit) log(`${name} exited (${signal ?? code}); log: ${logPath}`);
        reject(new Error(`${name} exited (${signal ?? code}) before it was ready; log: ${logPath}\n${tail(seen)}`));
      });
      if (!readyLine) resolve();
    });
    ready.catch(() => {});
    entry.ready = ready;
    return entry;
  }

  /** Throws when a child that should be running has exited. */
  assertAlive() {
    for (const e of this.list) {
      if (e.exited !== null && !e.expectedExit) throw new Error(`${e.name} exited unexpectedly (${e.exited}); log: ${e.logPath}`);
    }
  }

  async stop(entry, graceMs = 5_000) {
    entry.expectedExit = true;
    const { child } = entry;
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise((resolve) => {
      const killer = setTimeout(() => {
        try {
          child.kill('SIGKILL');
        } catch {}
      }, graceMs);
      child.once('exit', () => {
        clearTimeout(killer);
        resolve();
      });
      try {
        child.kill('SIGTERM');
      } catch {
        clearTimeout(killer);
        resolve();
      }
    });
  }

  /** Stops every child, newest first (gateway before service before NATS). */
  async stopAll() {
    for (const entry of [...this.list].reverse()) await this.stop(entry);
  }

  /** Synchronous last resort (process 'exit' handler): SIGKILL whatever still runs. */
  killAllNow() {
    for (const { child } of this.list) {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          child.kill('SIGKILL');
        } catch {}
      }
    }
  }
}

function tail(text, lines = 15) {
  return text.split('\n').slice(-lines).join('\n');
}

/** Warn/error lines of a child's log (JSON or plain), for the report. */
export function logIssues(logPath, max = 10) {
  if (!existsSync(logPath)) return { warn: 0, error: 0, samples: [] };
  const counts = { warn: 0, error: 0, samples: [] };
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let level = null;
    try {
      const parsed = JSON.parse(line);
      level = String(parsed.level ?? '').toLowerCase();
    } catch {
      if (/\b(ERROR|FATAL)\b/.test(line) || /\[ERR\]|\[FTL\]/.test(line)) level = 'error';
      else if (/\bWARN\b/.test(line) || /\[WRN\]/.test(line)) level = 'warn';
    }
    if (level === 'error' || level === 'fatal') counts.error++;
    else if (level === 'warn') counts.warn++;
    else continue;
    if (counts.samples.length < max) counts.samples.push(line.slice(0, 500));
  }
  return counts;
}

// ---------------------------------------------------------------- HTTP

/** One request on `agent` to 127.0.0.1:port; resolves with status, headers and body text. */
export function request(agent, port, { method = 'GET', path, headers = {}, body = null, timeoutMs = 15_000 }) {
  return new Promise((resolve, reject) => {
    const h = { ...headers };
    if (body !== null) {
      h['content-type'] = 'application/json';
      h['content-length'] = Buffer.byteLength(body);
    }
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: h }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** Polls `GET path` until it answers 200 (or throws after timeoutMs). */
export async function waitFor200(port, path, { timeoutMs = 30_000, children = null, what = path } = {}) {
  const agent = new http.Agent({ keepAlive: false });
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    children?.assertAlive();
    try {
      const res = await request(agent, port, { path, timeoutMs: 2_000 });
      if (res.status === 200) return;
      last = `${res.status} ${res.body.slice(0, 300)}`;
    } catch (err) {
      last = err.message;
    }
    await sleep(200);
  }
  throw new Error(`${what} on port ${port} not 200 within ${timeoutMs} ms (last: ${last})`);
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/**
 * Closed-loop load: `concurrency` workers on one keep-alive agent, `warmup` unmeasured requests
 * then `total` measured ones, bounded by `maxMs` of measured time. `make(i, w)` builds request i,
 * sent by worker w (0 … concurrency − 1: one client each, e.g. with its own API key);
 * an answer whose status is not `expect` (or a network error) is an error. `check(res, i)` may
 * return a string to count an answer as wrong. Returns throughput, latency percentiles (ms),
 * errors with samples, and whether the time bound cut the run short.
 */
export async function runLoad({ port, concurrency, warmup, total, maxMs, make, expect, check = null, onSample = null }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  try {
    if (warmup > 0) {
      await phase(warmup, Math.min(maxMs, 60_000), null);
    }
    const latencies = new Float64Array(total);
    const result = await phase(total, maxMs, latencies);
    const done = result.done;
    const sorted = latencies.subarray(0, done).sort();
    return {
      concurrency,
      warmup,
      requested: total,
      completed: done,
      seconds: round(result.elapsedMs / 1000, 3),
      reqPerSec: round(done / (result.elapsedMs / 1000), 1),
      p50Ms: round(percentile(sorted, 50), 2),
      p90Ms: round(percentile(sorted, 90), 2),
      p99Ms: round(percentile(sorted, 99), 2),
      maxMs: round(sorted[sorted.length - 1] ?? null, 2),
      meanMs: round(done ? sorted.reduce((a, b) => a + b, 0) / done : null, 2),
      errors: result.errors,
      errorsByKind: result.errorsByKind,
      errorSamples: result.errorSamples,
      timeBoundHit: result.timeBoundHit,
    };
  } finally {
    agent.destroy();
  }

  async function phase(count, limitMs, latencies) {
    let next = 0;
    let done = 0;
    let errors = 0;
    const errorsByKind = {};
    const errorSamples = [];
    const started = performance.now();
    const deadline = started + limitMs;
    let timeBoundHit = false;
    const noteError = (kind, detail) => {
      errors++;
      errorsByKind[kind] = (errorsByKind[kind] ?? 0) + 1;
      if (errorSamples.length < 5) errorSamples.push(`${kind}: ${String(detail).slice(0, 300)}`);
    };
    // Array.from calls worker(undefined, w): w is the worker (the client), 0 … concurrency − 1.
    const worker = async (_, w) => {
      for (;;) {
        if (next >= count) return;
        if (performance.now() > deadline) {
          timeBoundHit = true;
          return;
        }
        const i = next++;
        const spec = make(i, w);
        const t0 = performance.now();
        let res = null;
        try {
          res = await request(agent, port, spec);
        } catch (err) {
          noteError('network', err.message);
        }
        const ms = performance.now() - t0;
        if (latencies) latencies[done] = ms;
        done++;
        if (res) {
          if (res.status !== expect) noteError(`http ${res.status}`, res.body);
          else if (check) {
            const wrong = check(res, i);
            if (wrong) noteError('wrong answer', wrong);
          }
          if (onSample && latencies) onSample(res, i);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { done, errors, errorsByKind, errorSamples, elapsedMs: performance.now() - started, timeBoundHit };
  }
}

export function round(value, digits) {
  if (value === null || value === undefined || Number.isNaN(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

// ---------------------------------------------------------------- CPU accounting

const CLOCK_TICKS = 100; // USER_HZ on Linux

function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11] = utime, fields[12] = stime (fields 14 and 15 of proc(5), counted from state = 3)
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Pids of every process whose comm is `postgres` (server and backends), when /proc shows them. */
function postgresPids() {
  if (!existsSync('/proc')) return [];
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(name));
    } catch {}
  }
  return pids;
}

/**
 * CPU used per named process over an interval, as % of one core. `procs` maps a label to a pid;
 * `postgres` sums every local postgres process (backends come and go: a new backend counts from 0).
 */
function machineTicks() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    return { busy: f[0] + f[1] + f[2] + f[5] + f[6], idle: f[3], iowait: f[4], steal: f[7] ?? 0 };
  } catch {
    return null;
  }
}

export function cpuMeter(procs) {
  const snap = () => {
    const by = {};
    for (const [label, pid] of Object.entries(procs)) by[label] = pid ? cpuTicks(pid) : null;
    const pg = {};
    for (const pid of postgresPids()) pg[pid] = cpuTicks(pid);
    const self = process.cpuUsage();
    return { at: performance.now(), by, pg, self, machine: machineTicks() };
  };
  const start = snap();
  return {
    stop() {
      const end = snap();
      const seconds = (end.at - start.at) / 1000;
      const out = {};
      for (const label of Object.keys(procs)) {
        const a = start.by[label];
        const b = end.by[label];
        out[label] = a === null || b === null ? null : round(((b - a) / CLOCK_TICKS / seconds) * 100, 0);
      }
      if (Object.keys(end.pg).length > 0) {
        let ticks = 0;
        for (const [pid, t] of Object.entries(end.pg)) if (t !== null) ticks += t - (start.pg[pid] ?? 0);
        out.postgres = round((ticks / CLOCK_TICKS / seconds) * 100, 0);
      } else {
        out.postgres = null;
      }
      const selfMicros = end.self.user - start.self.user + end.self.system - start.self.system;
      out['bench (load generator)'] = round((selfMicros / 1e6 / seconds) * 100, 0);
      if (start.machine && end.machine) {
        const d = Object.fromEntries(Object.keys(end.machine).map((k) => [k, end.machine[k] - start.machine[k]]));
        const all = d.busy + d.idle + d.iowait + d.steal;
        // Per-process figures are tick-sampled and miss interrupt work: this one is the whole box.
        out.machine = { busyPercentOfAllCores: round((d.busy / all) * 100, 0), iowaitPercent: round((d.iowait / all) * 100, 0), stealPercent: round((d.steal / all) * 100, 0), cores: os.cpus().length };
      }
      return out;
    },
  };
}

// ---------------------------------------------------------------- the intent repository's SQL

/**
 * The built IntentsRepository class (apps/intent-service/dist). The bench never copies its SQL:
 * the baseline runs the class's own statements on a plain pg pool, and the EXPLAINs capture the
 * text it would send, so both follow the product when its SQL changes.
 */
export async function loadIntentsRepository(root) {
  await import('reflect-metadata');
  const { pathToFileURL } = await import('node:url');
  const mod = await import(pathToFileURL(join(root, 'apps', 'intent-service', 'dist', 'intents', 'intents.repository.js')).href);
  if (typeof mod.IntentsRepository !== 'function') throw new Error('apps/intent-service/dist/intents/intents.repository.js has no IntentsRepository: build first');
  return mod.IntentsRepository;
}

/** A DataSource stand-in for the repository: `query` on a pg pool, answering the rows (as TypeORM does for a SELECT / RETURNING). */
export function pgDataSource(pgPool) {
  return { query: async (sql, params) => (await pgPool.query(sql, params)).rows };
}

/** The create body's optional fields, set to null as the contracts' schema leaves them (no validation). */
const OPTIONAL_INTENT_FIELDS = ['maxBuyTax', 'maxSellTax', 'minIn', 'minOut', 'minLiquidity', 'feeBps', 'feeRecipient', 'firstOrFail', 'maxSlippageBps', 'gasTip'];

/**
 * What the bench's baseline servers share (`name`: `baseline` or `bare`): the tenant
 * (BENCH_TENANT_ID, else exit 64), a pg pool connected as the superuser straight to the bench
 * database (BASELINE_POOL_SIZE, default 20: the intent service's INTENT_DB_POOL_SIZE default),
 * the built IntentsRepository on it (its exact SQL, nothing around it), and `withNulls(body)`.
 */
export async function baselineIntentStore(root, name) {
  const tenantId = process.env.BENCH_TENANT_ID;
  if (!tenantId) {
    process.stderr.write(`${name}: BENCH_TENANT_ID is required\n`);
    process.exit(64);
  }
  const pool = new pg.Pool({
    host: process.env.PGHOST || '127.0.0.1',
    port: Number(process.env.PGPORT || 5432),
    user: process.env.PG_ADMIN_USER || 'postgres',
    password: process.env.PG_ADMIN_PASSWORD || undefined,
    database: process.env.PGDATABASE,
    max: Number(process.env.BASELINE_POOL_SIZE || 20),
    application_name: `bench-${name}`,
  });
  pool.on('error', () => {}); // an idle client cut off (the bench dropping its database at the end)
  const IntentsRepository = await loadIntentsRepository(root);
  const repository = new IntentsRepository(pgDataSource(pool));
  const withNulls = (body) => {
    const intent = { ...body };
    for (const k of OPTIONAL_INTENT_FIELDS) intent[k] ??= null;
    return intent;
  };
  return { tenantId, pool, repository, withNulls };
}

/** The built LedgerRepository class (apps/payout-service/dist), same use as loadIntentsRepository. */
export async function loadLedgerRepository(root) {
  await import('reflect-metadata');
  const { pathToFileURL } = await import('node:url');
  const mod = await import(pathToFileURL(join(root, 'apps', 'payout-service', 'dist', 'ledger', 'ledger.repository.js')).href);
  if (typeof mod.LedgerRepository !== 'function') throw new Error('apps/payout-service/dist/ledger/ledger.repository.js has no LedgerRepository: build first');
  return mod.LedgerRepository;
}

/**
 * The SQL text and parameters `call(repository)` sends, without running it. `rows` is what the
 * fake query answers (default none; a method that reads `rows[0]` needs one).
 */
export async function captureRepositorySql(IntentsRepository, call, { rows = [] } = {}) {
  let captured = null;
  const repo = new IntentsRepository({
    query: async (sql, params) => {
      captured ??= { sql, params };
      return rows;
    },
  });
  await call(repo);
  if (!captured) throw new Error('the repository sent no SQL');
  return captured;
}

// ---------------------------------------------------------------- the life of one bench run

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

export function ident(name) {
  return `"${String(name).replaceAll('"', '""')}"`;
}

/** Runs `node <root>/<script> args` to completion; its stdout, or an error with both outputs. */
export function runNodeScript(root, script, args, childEnv) {
  const r = spawnSync(process.execPath, [join(root, script), ...args], { cwd: root, env: childEnv, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${script} ${args.join(' ')} failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/**
 * One bench run: a temp folder for child logs, the children, the pg pools and the bench
 * database. Ctrl-C, SIGTERM, SIGHUP and the time bound (BENCH_MAX_SECONDS) all stop the
 * children and drop the database; `onCleanup` adds what a bench opens itself (NATS clients,
 * proxies). `finish()` does the same at the normal end.
 */
export class BenchRun {
  constructor({ name, env, maxSeconds, applicationName }) {
    this.env = env;
    this.applicationName = applicationName;
    this.tmp = mkdtempSync(join(os.tmpdir(), `ti-bench-${name}-`));
    this.children = new Children(this.tmp);
    this.pools = [];
    this.hooks = [];
    this.dbName = null;
    this.failed = false;
    this.aborting = false;
    this.cleanupPromise = null;
    process.on('SIGINT', () => void this.abort('interrupted', 130));
    process.on('SIGTERM', () => void this.abort('terminated', 143));
    process.on('SIGHUP', () => void this.abort('hang-up', 129));
    process.on('exit', () => this.children.killAllNow());
    this.deadline = setTimeout(() => void this.abort(`time bound of ${maxSeconds} s reached (BENCH_MAX_SECONDS)`, 124), maxSeconds * 1000);
  }

  onCleanup(hook) {
    this.hooks.push(hook);
  }

  /** From now on, cleanup drops this database (IF EXISTS). */
  useDatabase(name) {
    this.dbName = name;
  }

  pool(database, max = 2) {
    const p = new pg.Pool({ ...adminConfig(this.env, database), max, application_name: this.applicationName });
    p.on('error', () => {});
    this.pools.push(p);
    return p;
  }

  step(title) {
    if (this.aborting) throw new Error('aborted');
    this.children.assertAlive();
    log(title);
  }

  cleanup() {
    this.cleanupPromise ??= (async () => {
      for (const hook of this.hooks) await Promise.resolve().then(hook).catch(() => {});
      await this.children.stopAll().catch(() => {});
      // Not awaited first: a pool waits for its busy clients, and a seeding statement or an index
      // build can run for a minute. DROP … WITH (FORCE) ends them.
      const ending = Promise.all(this.pools.map((p) => p.end().catch(() => {})));
      if (this.dbName) {
        const admin = new pg.Client(adminConfig(this.env));
        try {
          await admin.connect();
          await admin.query(`DROP DATABASE IF EXISTS ${ident(this.dbName)} WITH (FORCE)`);
          log(`dropped database ${this.dbName}`);
        } catch (err) {
          log(`could not drop database ${this.dbName}: ${err.message} (drop it by hand)`);
        } finally {
          await admin.end().catch(() => {});
        }
      }
      await Promise.race([ending, sleep(5_000)]);
      if ((this.failed && this.children.list.length > 0) || process.env.BENCH_KEEP_LOGS === '1') {
        log(`child logs kept in ${this.tmp}`);
        rmSync(join(this.tmp, 'nats'), { recursive: true, force: true });
      } else {
        rmSync(this.tmp, { recursive: true, force: true });
      }
    })();
    return this.cleanupPromise;
  }

  async abort(reason, code) {
    if (this.aborting) {
      this.children.killAllNow();
      process.exit(code);
    }
    this.aborting = true;
    this.failed = true;
    for (const e of this.children.list) e.expectedExit = true; // a terminal's Ctrl-C reaches them too
    log(`${reason}: stopping children and dropping the bench database (Ctrl-C again to force)`);
    await this.cleanup();
    process.exit(code);
  }

  /** Drops bench databases whose bench process is gone and that nobody is connected to. */
  async dropLeftovers() {
    const admin = new pg.Client(adminConfig(this.env));
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `SELECT d.datname FROM pg_database d
         WHERE d.datname ~ '^ti_bench_[0-9]+_[0-9a-f]+$'
           AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)`,
      );
      for (const { datname } of rows) {
        const pid = Number(datname.split('_')[2]);
        if (pid === process.pid || pidAlive(pid)) continue;
        await admin.query(`DROP DATABASE IF EXISTS ${ident(datname)} WITH (FORCE)`);
        log(`dropped ${datname}, left over by an earlier bench run that did not finish`);
      }
    } finally {
      await admin.end();
    }
  }

  /**
   * A private nats-server with JetStream (its store in this run's temp folder), or, with
   * BENCH_SHARED_NATS=1 or no binary, the shared NATS_URL (with a warning).
   */
  async startNats() {
    const binary = process.env.BENCH_SHARED_NATS === '1' ? null : natsServerBinary();
    if (binary) {
      const port = await freePort();
      const store = join(this.tmp, 'nats');
      mkdirSync(store, { recursive: true });
      const entry = this.children.start('nats-server', binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {
        readyLine: /Server is ready/,
        readyTimeoutMs: 15_000,
      });
      await entry.ready;
      const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? null;
      return { url: `nats://127.0.0.1:${port}`, private: true, binary, version, pid: entry.child.pid };
    }
    const url = this.env.NATS_URL;
    const why = process.env.BENCH_SHARED_NATS === '1' ? 'BENCH_SHARED_NATS=1' : 'no nats-server binary (PATH, /usr/sbin, NATS_SERVER_BIN)';
    if (!(await natsReachable(url))) {
      throw new Error(`${why} and NATS is not reachable at ${url}: install nats-server or start one with JetStream (\`nats-server -js\`), or set NATS_URL`);
    }
    log(
      `WARNING: ${why}, using the shared NATS at ${url}. A running \`npm start\` or another bench on it would take part in ` +
        'this run (same queue groups, streams and consumers): stop them first.',
    );
    return { url, private: false, binary: null, version: null, pid: null };
  }

  /**
   * Runs a bench's body, which resolves to `{ path, json, text, errors, targetsMet }`: writes the
   * figures to `path`, prints the table, and exits 1 when requests failed, 3 under
   * BENCH_STRICT=1 when a target was missed, 1 with the message when the body threw. Cleans up
   * in every case.
   */
  async complete(body) {
    let exitCode = 0;
    try {
      const { path, json, text, errors, targetsMet } = await body();
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`);
      process.stdout.write(`${text}\nresults: ${relative(process.cwd(), path) || path} (${path})\n`);
      if (errors > 0) {
        this.failed = true;
        exitCode = 1;
      } else if (process.env.BENCH_STRICT === '1' && !targetsMet) {
        exitCode = 3;
      }
    } catch (err) {
      if (!this.aborting) {
        this.failed = true;
        exitCode = 1;
        log(`bench failed: ${process.env.BENCH_DEBUG === '1' ? err.stack : err.message}`);
      }
    } finally {
      if (!this.aborting) await this.finish();
    }
    if (!this.aborting) process.exit(exitCode);
  }

  /** The normal end: stop the clock, clean up. */
  async finish() {
    clearTimeout(this.deadline);
    await this.cleanup();
  }
}

/** What the figures were measured on: host, OS, CPUs, memory, load, Node. */
/** One JSON-RPC 2.0 call over HTTP to a chain node; throws with the method named on any error. */
let jsonRpcId = 0;
export async function jsonRpc(url, method, params = [], timeoutMs = 30_000) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++jsonRpcId, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let reply;
  try {
    reply = JSON.parse(text);
  } catch {
    throw new Error(`${method}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (reply.error) throw new Error(`${method}: ${reply.error.message} (code ${reply.error.code})`);
  return reply.result;
}

/** The installed version of a package (null when it is not installed). */
export function packageVersion(root, name) {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * `hardhat node` from node_modules, started directly as a child (its pid is the node) on a free
 * port, with `network` as its hardhat network config (written to `dir`). Request logging off.
 */
export async function startHardhatNode({ root, children, dir, network, readyTimeoutMs = 60_000 }) {
  mkdirSync(dir, { recursive: true });
  const config = { networks: { hardhat: network } };
  writeFileSync(join(dir, 'hardhat.config.cjs'), `module.exports = ${JSON.stringify(config, null, 2)};\n`);
  const port = await freePort();
  const entry = children.start(
    'hardhat',
    process.execPath,
    [join(root, 'node_modules/hardhat/internal/cli/bootstrap.js'), 'node', '--hostname', '127.0.0.1', '--port', String(port), '--config', join(dir, 'hardhat.config.cjs')],
    {
      cwd: dir,
      env: { ...process.env, HARDHAT_EXPERIMENTAL_ALLOW_NON_LOCAL_INSTALLATION: 'true', HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', CI: 'true' },
      readyLine: /Started HTTP and WebSocket JSON-RPC server/,
      readyTimeoutMs,
    },
  );
  await entry.ready;
  const url = `http://127.0.0.1:${port}`;
  const version = await jsonRpc(url, 'web3_clientVersion');
  // Hardhat logs every request (with stack traces of reverts); nobody reads it.
  await jsonRpc(url, 'hardhat_setLoggingEnabled', [false]);
  return { url, port, pid: entry.child.pid, version, config };
}

export function hostInfo() {
  const cpus = os.cpus();
  let osName = `${os.type()} ${os.release()}`;
  try {
    osName = /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? osName;
  } catch {}
  return {
    hostname: os.hostname(),
    os: osName,
    kernel: os.release(),
    arch: os.arch(),
    cpuModel: cpus[0]?.model ?? null,
    cpus: cpus.length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    loadAverageAtStart: os.loadavg().map((v) => round(v, 2)),
    node: process.version,
  };
}
