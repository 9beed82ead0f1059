// What a benchmark reads of a process from outside it, on Linux (/proc): CPU time used so far and resident memory, so
// Clarion's cost is measured alone (neither the fakes nor the driver count).
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime: 100 on every Linux the project runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far, from /proc/<pid>/stat (Linux), counted from outside it. */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis): utime is the
  // 14th field of the line, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU seconds used so far by every PostgreSQL server process on this machine (backends, WAL writer, checkpointer):
 * the database's share of a PostgreSQL run. Other users of the same server are counted too, so on a shared machine
 * this is an upper bound. Processes that exit between two readings drop out of the sum.
 */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      total += processCpuSeconds(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return total;
}

/** Peak resident set size of a live process since it started (VmHWM), in MB. */
export function processPeakRssMb(pid: number): number {
  return statusMb(pid, 'VmHWM');
}

/** Resident set size of a live process now (VmRSS), in MB. */
export function processRssMb(pid: number): number {
  return statusMb(pid, 'VmRSS');
}

function statusMb(pid: number, field: string): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}
