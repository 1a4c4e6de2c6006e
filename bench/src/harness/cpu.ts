import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { round } from './log.js';

const CLOCK_TICKS = 100; // USER_HZ on Linux

function cpuTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11] = utime, fields[12] = stime (fields 14 and 15 of proc(5), counted from state = 3)
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** What `postgres` counts: every local postgres process, or (see scopePostgres) one database's share. */
let pgScope: { postmaster: number; database: string } | null = null;

/**
 * From now on, `postgres` counts only the server of `postmaster` (its pid) for `database`: its
 * background processes and the backends connected to that database, so other work on a shared
 * server (other databases, other clusters) is not charged to the bench.
 */
export function scopePostgres(postmaster: number, database: string): void {
  pgScope = { postmaster, database };
}

/** The postmaster of the backend `backendPid` (its parent), or null. */
export function parentPid(backendPid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${backendPid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** A backend's title: `postgres: [cluster: ]user database host(port) state`. */
const BACKEND_TITLE = /^postgres: (?:\S+: )?\S+ (\S+) (?:\[local\]|[\d.:a-f]+\(\d+\))/;

/** Pids of every process whose comm is `postgres` (server and backends) in scope, when /proc shows them. */
function postgresPids(): number[] {
  if (!existsSync('/proc')) return [];
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'postgres') continue;
      if (pgScope && Number(name) !== pgScope.postmaster) {
        if (parentPid(Number(name)) !== pgScope.postmaster) continue;
        const title = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        const backend = BACKEND_TITLE.exec(title);
        if (backend && backend[1] !== pgScope.database) continue;
      }
      pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

interface MachineTicks {
  busy: number;
  idle: number;
  iowait: number;
  steal: number;
}

function machineTicks(): MachineTicks | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    return { busy: f[0]! + f[1]! + f[2]! + f[5]! + f[6]!, idle: f[3]!, iowait: f[4]!, steal: f[7] ?? 0 };
  } catch {
    return null;
  }
}

/** Per label: % of one core; `postgres` and the bench itself added, and `machine` for the whole box. */
export type CpuFigures = Record<string, any>;

/**
 * CPU used per named process over an interval, as % of one core. `procs` maps a label to a pid;
 * `postgres` sums every local postgres process (backends come and go: a new backend counts from 0).
 */
export function cpuMeter(procs: Record<string, number | null | undefined>): { stop(): CpuFigures } {
  const snap = () => {
    const by: Record<string, number | null> = {};
    for (const [label, pid] of Object.entries(procs)) by[label] = pid ? cpuTicks(pid) : null;
    const pg: Record<number, number | null> = {};
    for (const pid of postgresPids()) pg[pid] = cpuTicks(pid);
    return { at: performance.now(), by, pg, self: process.cpuUsage(), machine: machineTicks() };
  };
  const start = snap();
  return {
    stop() {
      const end = snap();
      const seconds = (end.at - start.at) / 1000;
      const out: CpuFigures = {};
      for (const label of Object.keys(procs)) {
        const a = start.by[label];
        const b = end.by[label];
        out[label] = a === null || b === null || a === undefined || b === undefined ? null : round(((b - a) / CLOCK_TICKS / seconds) * 100, 0);
      }
      if (Object.keys(end.pg).length > 0) {
        let ticks = 0;
        for (const [pid, t] of Object.entries(end.pg)) if (t !== null) ticks += t - (start.pg[Number(pid)] ?? 0);
        out.postgres = round((ticks / CLOCK_TICKS / seconds) * 100, 0);
      } else {
        out.postgres = null;
      }
      const selfMicros = end.self.user - start.self.user + end.self.system - start.self.system;
      out['bench (load generator)'] = round((selfMicros / 1e6 / seconds) * 100, 0);
      if (start.machine && end.machine) {
        const s = start.machine;
        const e = end.machine;
        const d = { busy: e.busy - s.busy, idle: e.idle - s.idle, iowait: e.iowait - s.iowait, steal: e.steal - s.steal };
        const all = d.busy + d.idle + d.iowait + d.steal;
        // Per-process figures are tick-sampled and miss interrupt work: this one is the whole box.
        out.machine = {
          busyPercentOfAllCores: round((d.busy / all) * 100, 0),
          iowaitPercent: round((d.iowait / all) * 100, 0),
          stealPercent: round((d.steal / all) * 100, 0),
          cores: os.cpus().length,
        };
      }
      return out;
    },
  };
}
