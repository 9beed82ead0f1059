// Loaded into `clarion serve` with `node --import` by bench/accept-delivery.ts --loop-probe (plain JavaScript: the
// server may run the compiled build, without tsx). Measures the main thread's event-loop turns in CPU time of that
// thread, so that a turn that blocks the loop can be told from a process waiting for a core on a busy machine: a 1 ms
// timer reads the thread's CPU time (/proc/thread-self/schedstat, ns) each time it fires, and the CPU used between
// two firings is what one turn of the loop ran (timers, I/O callbacks, immediates, their microtasks). A request
// arriving during a turn waits at least that long on an idle machine. SIGUSR2 writes the turns since the previous
// SIGUSR2 to BENCH_LOOP_PROBE_FILE as JSON and starts counting again. Costs one 1 ms timer and a /proc read per turn.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_LOOP_PROBE_FILE;
if (isMainThread && file) {
  const threadCpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  let cpuTurns = [];
  let wallTurns = [];
  let lastCpu = threadCpuMs();
  let lastWall = performance.now();
  let startCpu = lastCpu;
  let startWall = lastWall;
  setInterval(() => {
    const cpu = threadCpuMs();
    const wall = performance.now();
    cpuTurns.push(cpu - lastCpu);
    wallTurns.push(wall - lastWall);
    lastCpu = cpu;
    lastWall = wall;
  }, 1).unref();
  process.on('SIGUSR2', () => {
    const cpu = threadCpuMs();
    const wall = performance.now();
    const sortedCpu = [...cpuTurns].sort((a, b) => a - b);
    const sortedWall = [...wallTurns].sort((a, b) => a - b);
    const at = (sorted, fraction) =>
      sorted.length
        ? Number(sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))].toFixed(2))
        : null;
    const over = (limit) =>
      Number(
        cpuTurns
          .filter((value) => value > limit)
          .reduce((sum, value) => sum + value, 0)
          .toFixed(0),
      );
    writeFileSync(
      file,
      JSON.stringify({
        turns: cpuTurns.length,
        threadCores: Number(((cpu - startCpu) / (wall - startWall)).toFixed(3)),
        cpuP50Ms: at(sortedCpu, 0.5),
        cpuP99Ms: at(sortedCpu, 0.99),
        cpuMaxMs: at(sortedCpu, 1),
        wallP99Ms: at(sortedWall, 0.99),
        wallMaxMs: at(sortedWall, 1),
        cpuMsInTurnsOver10Ms: over(10),
        cpuMsInTurnsOver50Ms: over(50),
        cpuMsInAll: Number((cpu - startCpu).toFixed(0)),
      }),
    );
    cpuTurns = [];
    wallTurns = [];
    startCpu = lastCpu = cpu;
    startWall = lastWall = wall;
  });
}
