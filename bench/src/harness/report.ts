// The one report format of the benchmarks: a run's figures on one line, tables of rows.
import type { CpuFigures } from './cpu.js';
import type { LoadResult } from './http.js';
import type { Figures } from './log.js';

/** A load run on one line (stderr, as it goes). */
export function fmtRun(r: LoadResult | Figures): string {
  const first = r.errors ? ` (${JSON.stringify(r.errorsByKind)}, e.g. ${r.errorSamples[0]})` : '';
  return `${r.completed} req in ${r.seconds} s = ${r.reqPerSec} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, max ${r.maxMs} ms, errors ${r.errors}${first}${r.timeBoundHit ? ' (TIME BOUND HIT)' : ''}`;
}

/**
 * `rows` under `headers`, columns padded to their widest cell: the first `textColumns` columns
 * left-aligned, the figures after them right-aligned; null and undefined cells shown as `–`.
 */
export function table(rows: unknown[][], headers: string[], textColumns = 2): string {
  const cells = [headers, ...rows].map((r) => r.map((c) => (c === null || c === undefined ? '–' : String(c as string | number))));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i >= textColumns ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  return [line(cells[0]!), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** Per-process CPU (% of one core), and the whole box when measured. */
export function fmtCpu(cpu: CpuFigures | null | undefined): string {
  const { machine, ...procs } = cpu ?? {};
  const list = Object.entries(procs)
    .map(([k, v]) => `${k} ${v ?? '?'}`)
    .join(', ');
  return machine ? `${list}; whole box ${machine.busyPercentOfAllCores}% busy of ${machine.cores} cores` : list;
}

export function yes(b: unknown): string {
  return b ? 'yes' : 'NO';
}

/** A load run's cells in the benches' tables: concurrency, completed, req/s, p50, p99, max, rows per answer, errors. */
export function runCells(r: Figures): unknown[] {
  return [
    r.concurrency,
    r.completed,
    r.reqPerSec,
    r.p50Ms,
    r.p99Ms,
    r.maxMs,
    r.rowsPerAnswer ? r.rowsPerAnswer.mean : null,
    `${r.errors}${r.timeBoundHit ? ' (cut)' : ''}`,
  ];
}
