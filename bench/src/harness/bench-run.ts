import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import { freePort, natsServerBinary } from '@tradeinfra/test-support';
import pg from 'pg';
import { adminConfig } from '../../../infra/postgres/bootstrap.mjs';
import { natsReachable } from '../../../scripts/lib.mjs';
import { Children } from './children.js';
import { ident, log, ROOT, round, sleep, type Figures } from './log.js';

/** What a bench's body resolves to: the figures file, its table, failed requests, targets. */
export interface BenchOutcome {
  path: string;
  json: unknown;
  text: string;
  errors: number;
  targetsMet: boolean;
}

export interface BenchNats {
  url: string;
  private: boolean;
  binary: string | null;
  version: string | null;
  pid: number | null;
}

/** Runs `node <root>/<script> args` to completion; its stdout, or an error with both outputs. */
export function runNodeScript(script: string, args: string[], childEnv: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, [join(ROOT, script), ...args], { cwd: ROOT, env: childEnv, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${script} ${args.join(' ')} failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One bench run: a temp folder for child logs, the children, the pg pools and the bench
 * database. Ctrl-C, SIGTERM, SIGHUP and the time bound (BENCH_MAX_SECONDS) all stop the
 * children and drop the database; `onCleanup` adds what a bench opens itself (NATS clients,
 * proxies). `finish()` does the same at the normal end.
 */
export class BenchRun {
  readonly env: NodeJS.ProcessEnv;
  readonly tmp: string;
  readonly children: Children;
  private readonly applicationName: string;
  private readonly pools: pg.Pool[] = [];
  private readonly hooks: Array<() => unknown> = [];
  private dbName: string | null = null;
  private failed = false;
  /** Set once the run is being torn down (Ctrl-C, the time bound): long loops stop. */
  aborting = false;
  private cleanupPromise: Promise<void> | null = null;
  private readonly deadline: NodeJS.Timeout;

  constructor({ name, env, maxSeconds, applicationName }: { name: string; env: NodeJS.ProcessEnv; maxSeconds: number; applicationName: string }) {
    this.env = env;
    this.applicationName = applicationName;
    this.tmp = mkdtempSync(join(os.tmpdir(), `ti-bench-${name}-`));
    this.children = new Children(this.tmp);
    process.on('SIGINT', () => void this.abort('interrupted', 130));
    process.on('SIGTERM', () => void this.abort('terminated', 143));
    process.on('SIGHUP', () => void this.abort('hang-up', 129));
    process.on('exit', () => this.children.killAllNow());
    this.deadline = setTimeout(() => void this.abort(`time bound of ${maxSeconds} s reached (BENCH_MAX_SECONDS)`, 124), maxSeconds * 1000);
  }

  onCleanup(hook: () => unknown): void {
    this.hooks.push(hook);
  }

  /** The bench database (null before {@link useDatabase}). */
  get database(): string | null {
    return this.dbName;
  }

  /**
   * The head of every results JSON: the benchmark, when it started, how long it ran, its command,
   * the machine, and the parameters: the bench's own, its database and NATS, then `extra`.
   */
  resultsHead(
    benchmark: string,
    run: { startedAt: Date; totalSeconds: number; machine: Figures; nats: { url: string; private: boolean } },
    parameters: Figures,
    extra: Figures = {},
  ): Figures {
    return {
      benchmark,
      startedAt: run.startedAt.toISOString(),
      totalSeconds: round(run.totalSeconds, 1),
      command: `npm run bench:${benchmark}`,
      machine: run.machine,
      parameters: { ...parameters, database: this.database, natsUrl: run.nats.url, privateNats: run.nats.private, ...extra },
    };
  }

  /** From now on, cleanup drops this database (IF EXISTS). */
  useDatabase(name: string): void {
    this.dbName = name;
  }

  pool(database: string, max = 2): pg.Pool {
    const p = new pg.Pool({ ...adminConfig(this.env, database), max, application_name: this.applicationName });
    p.on('error', () => {});
    this.pools.push(p);
    return p;
  }

  step(title: string): void {
    if (this.aborting) throw new Error('aborted');
    this.children.assertAlive();
    log(title);
  }

  cleanup(): Promise<void> {
    this.cleanupPromise ??= (async () => {
      for (const hook of this.hooks)
        await Promise.resolve()
          .then(hook)
          .catch(() => {});
      await this.children.stopAll().catch(() => {});
      // Not awaited first: a pool waits for its busy clients, and a seeding statement or an index
      // build can run for a minute. DROP … WITH (FORCE) ends them.
      const ending = Promise.all(this.pools.map((p) => p.end().catch(() => {})));
      if (this.dbName) await this.dropDatabase(this.dbName);
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

  private async dropDatabase(name: string): Promise<void> {
    const admin = new pg.Client(adminConfig(this.env));
    try {
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
      log(`dropped database ${name}`);
    } catch (err) {
      log(`could not drop database ${name}: ${(err as Error).message} (drop it by hand)`);
    } finally {
      await admin.end().catch(() => {});
    }
  }

  async abort(reason: string, code: number): Promise<void> {
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
  async dropLeftovers(): Promise<void> {
    const admin = new pg.Client(adminConfig(this.env));
    await admin.connect();
    try {
      const { rows } = await admin.query<{ datname: string }>(
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
  async startNats(): Promise<BenchNats> {
    let binary: string | null = null;
    if (process.env.BENCH_SHARED_NATS !== '1') {
      try {
        binary = natsServerBinary();
      } catch {
        binary = null;
      }
    }
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
      return { url: `nats://127.0.0.1:${port}`, private: true, binary, version, pid: entry.child.pid ?? null };
    }
    const url = this.env.NATS_URL!;
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
   * Runs a bench's body: writes the figures to `path`, prints the table, and exits 1 when
   * requests failed, 3 under BENCH_STRICT=1 when a target was missed, 1 with the message when
   * the body threw. Cleans up in every case.
   */
  async complete(body: () => Promise<BenchOutcome>): Promise<void> {
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
        log(`bench failed: ${process.env.BENCH_DEBUG === '1' ? (err as Error).stack : (err as Error).message}`);
      }
    } finally {
      if (!this.aborting) await this.finish();
    }
    if (!this.aborting) process.exit(exitCode);
  }

  /** The normal end: stop the clock, clean up. */
  async finish(): Promise<void> {
    clearTimeout(this.deadline);
    await this.cleanup();
  }
}

/** The gateway settings the benches run it with (rate limits lifted), as their results record them. */
export function gatewayEnvFigures(env: Record<string, string | undefined>): Figures {
  return {
    RATE_LIMIT_PER_SECOND: 1000000,
    RATE_LIMIT_BURST: 1000000,
    LOG_FORMAT: 'json',
    GATEWAY_DB_POOL_SIZE: env.GATEWAY_DB_POOL_SIZE ?? '10 (default)',
    REQUEST_TIMEOUT_MS: env.REQUEST_TIMEOUT_MS ?? '5000 (default)',
  };
}
