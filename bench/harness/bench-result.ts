/**
 * The contract between a benchmark script and bench/run.ts: the script's last stdout line is
 * `BENCH_RESULT <json>`, one object of named figures (numbers; null when not measured). Every script also runs on
 * its own and accepts `--quick` (a short run for CI that only proves it works).
 */
export const BENCH_RESULT_PREFIX = 'BENCH_RESULT ';

/** Numbers are the figures bench/run.ts tabulates; other fields (dialect, ranges, rows per size) are for the reader. */
export type BenchFigures = Record<string, unknown>;

export function printBenchResult(figures: BenchFigures): void {
  process.stdout.write(`${BENCH_RESULT_PREFIX}${JSON.stringify(figures)}\n`);
}

/** Rounds a figure for display: three significant digits are all a noisy machine gives. */
export function round(value: number): number {
  return Number(value.toPrecision(3));
}

/** Rounds to `digits` decimal places (seconds, µs per push): for figures whose scale is known. */
export function roundTo(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
