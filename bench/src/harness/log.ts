import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

/** The monorepo root (this file is bench/dist/harness/log.js once built). */
export const ROOT = join(import.meta.dirname, '..', '..', '..');

/** bench/dist: where the built benchmarks (and their helper processes) are. */
export const BENCH_DIST = join(ROOT, 'bench', 'dist');

/** bench/results/<name>.json: where a benchmark writes its figures. */
export const resultsPath = (name: string): string => join(ROOT, 'bench', 'results', `${name}.json`);

export function log(line: string): void {
  process.stderr.write(`\x1b[35m◆\x1b[0m ${line}\n`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function envInt(name: string, fallback: number, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

/** `value` rounded to `digits` decimals; null for null, undefined and NaN. */
export function round(value: number | null | undefined, digits: number): number | null {
  if (value === null || value === undefined || Number.isNaN(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The p-th percentile (nearest rank) of an ascending list; null when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** The installed version of a package (null when it is not installed). */
export function packageVersion(name: string): string | null {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return null;
  }
}

/** What the figures were measured on: host, OS, CPUs, memory, load, Node. */
export function hostInfo() {
  const cpus = os.cpus();
  let osName = `${os.type()} ${os.release()}`;
  try {
    osName = /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? osName;
  } catch {
    // no /etc/os-release: keep the kernel's name
  }
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

export function ident(name: string): string {
  return `"${String(name).replaceAll('"', '""')}"`;
}

/** Figures as they go into a results file: JSON, shaped by each bench. */
export type Figures = Record<string, any>;
