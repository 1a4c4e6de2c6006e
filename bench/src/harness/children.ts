import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { log } from './log.js';

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Ready once this appears on stdout/stderr; at once when not given. */
  readyLine?: RegExp | null;
  readyTimeoutMs?: number;
}

export interface Child {
  name: string;
  child: ChildProcess;
  logPath: string;
  /** Exit code or signal once it exited. */
  exited: number | string | null;
  expectedExit: boolean;
  ready: Promise<void>;
}

/**
 * Children started by the bench. Each is a direct child (no npx / shell in between), so the
 * pid we signal is the process that does the work. Output goes to a log file.
 */
export class Children {
  readonly list: Child[] = [];

  constructor(private readonly logDir: string) {}

  /**
   * Starts `command args`; `ready` resolves once `readyLine` appears on stdout/stderr, or
   * immediately when no readyLine is given. It rejects when the process exits first.
   */
  start(name: string, command: string, args: string[], { env, cwd, readyLine = null, readyTimeoutMs = 20_000 }: StartOptions = {}): Child {
    const logPath = join(this.logDir, `${name}.log`);
    const out = createWriteStream(logPath);
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const entry: Child = { name, child, logPath, exited: null, expectedExit: false, ready: Promise.resolve() };
    this.list.push(entry);
    let seen = '';
    entry.ready = new Promise<void>((resolve, reject) => {
      const timer = readyLine
        ? setTimeout(() => reject(new Error(`${name} did not become ready within ${readyTimeoutMs} ms; log: ${logPath}\n${tail(seen)}`)), readyTimeoutMs)
        : undefined;
      const onData = (chunk: Buffer) => {
        out.write(chunk);
        if (readyLine && seen.length < 200_000) {
          seen += chunk.toString();
          if (readyLine.test(seen)) {
            clearTimeout(timer);
            resolve();
          }
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
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
    entry.ready.catch(() => {});
    return entry;
  }

  /** Throws when a child that should be running has exited. */
  assertAlive(): void {
    for (const e of this.list) {
      if (e.exited !== null && !e.expectedExit) throw new Error(`${e.name} exited unexpectedly (${e.exited}); log: ${e.logPath}`);
    }
  }

  async stop(entry: Child, graceMs = 5_000): Promise<void> {
    entry.expectedExit = true;
    const { child } = entry;
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const killer = setTimeout(() => kill(child, 'SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(killer);
        resolve();
      });
      if (!kill(child, 'SIGTERM')) {
        clearTimeout(killer);
        resolve();
      }
    });
  }

  /** Stops every child, newest first (gateway before service before NATS). */
  async stopAll(): Promise<void> {
    for (const entry of [...this.list].reverse()) await this.stop(entry);
  }

  /** Synchronous last resort (process 'exit' handler): SIGKILL whatever still runs. */
  killAllNow(): void {
    for (const { child } of this.list) {
      if (child.exitCode === null && child.signalCode === null) kill(child, 'SIGKILL');
    }
  }
}

function kill(child: ChildProcess, signal: NodeJS.Signals): boolean {
  try {
    return child.kill(signal);
  } catch {
    return false;
  }
}

function tail(text: string, lines = 15): string {
  return text.split('\n').slice(-lines).join('\n');
}

export interface LogIssues {
  warn: number;
  error: number;
  samples: string[];
}

/** Warn/error lines of a child's log (JSON or plain), for the report. */
export function logIssues(logPath: string, max = 10): LogIssues {
  const counts: LogIssues = { warn: 0, error: 0, samples: [] };
  if (!existsSync(logPath)) return counts;
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let level: string | null = null;
    try {
      const parsed = JSON.parse(line) as { level?: unknown };
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
