import autocannon, { type Options, type Result } from 'autocannon';

/** Latency percentiles computed from every 2xx answer's own time, ms. */
export interface ExactLatency {
  answers: number;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

/**
 * autocannon at a fixed rate, with latency percentiles taken from every answer's own time instead of autocannon's
 * histogram. With a rate set, autocannon 8 "corrects for coordinated omission" by recording each answer with
 * `recordValueWithExpectedInterval(time, Math.ceil(1 / rate))` (lib/run.js): the interval should be the milliseconds
 * between a connection's requests, but 1 / (requests per second) rounded up is always 1, so an answer of 60 ms is
 * recorded as 60 samples (60, 59, … 1 ms) and the tail is counted many times over. Measured on a plain node:http
 * server answering 1 request in 100 after 60 ms and the rest after 1 ms, 100 req/s over 10 connections: autocannon's
 * p99 58 ms and p90 34 ms against 14.7 ms and 3.7 ms from the answers themselves (2026-11-24). Every accept p99 in
 * bench/README.md before session 7 came through that correction. Here the correction is off
 * (`ignoreCoordinatedOmission`) and the percentiles come from the answers. There is no per-request schedule to
 * correct against anyway: at a rate, a connection sends its share of each second back to back and then waits for the
 * next one-second tick (lib/httpClient.js).
 */
export async function pacedLoad(options: Options): Promise<{ result: Result; latency: ExactLatency }> {
  const times: number[] = [];
  const instance = autocannon({ ...options, ignoreCoordinatedOmission: true });
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    if (status >= 200 && status < 300) times.push(responseTime);
  });
  const result = await instance;
  return { result, latency: exactLatency(times) };
}

function exactLatency(times: number[]): ExactLatency {
  if (times.length === 0) return { answers: 0, p50: null, p99: null, max: null };
  const sorted = times.sort((a, b) => a - b);
  const at = (fraction: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]! * 10) / 10;
  return { answers: sorted.length, p50: at(0.5), p99: at(0.99), max: Math.round(sorted.at(-1)! * 10) / 10 };
}
