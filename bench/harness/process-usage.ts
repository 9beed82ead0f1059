// What a benchmark reads of a process from outside it, on Linux (/proc): CPU time used so far and resident memory, so
// Clarion's cost is measured alone (neither the fakes nor the driver count).
import { readFileSync } from 'node:fs';
import pg from 'pg';

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
 * CPU seconds used so far by the PostgreSQL processes that work for one database: the backends connected to it, and
 * the server's background processes (WAL writer, checkpointer, background writer…), whose work every database shares.
 * Backends of other databases — a test suite running beside the benchmark — are left out. The benchmarks give each
 * run a database of its own (bench-database.ts), so this is that run's database cost, and only the background
 * processes can carry a neighbour's share; `backgroundProcesses: false` leaves them out too (the backends alone).
 * Read twice and subtract: a backend that connects in between counts from zero, one that disconnects drops out. The
 * reading's own connection is not counted, and its statement is not one of the connection under measurement.
 */
export async function postgresDatabaseCpuSeconds(
  databaseUrl: string,
  { backgroundProcesses = true } = {},
): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE (datname = current_database()${backgroundProcesses ? ' OR datname IS NULL' : ''}) AND pid <> pg_backend_pid()`,
    );
    let total = 0;
    for (const { pid } of rows) {
      try {
        total += processCpuSeconds(pid);
      } catch {
        // The backend ended while we looked.
      }
    }
    return total;
  } finally {
    await client.end();
  }
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

/**
 * Starts counting the machine's busy CPU time (/proc/stat, every process); the returned function gives the busy cores
 * since then (0 to the number of cores). Near the core count means the processes are waiting for a core.
 */
export function machineBusyCores(): () => number {
  const read = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are the idle time.
    const idle = fields[3]! + fields[4]!;
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return { idle, total, at: performance.now() };
  };
  const start = read();
  return () => {
    const end = read();
    const seconds = (end.at - start.at) / 1000;
    return (end.total - start.total - (end.idle - start.idle)) / TICKS_PER_SECOND / seconds;
  };
}
