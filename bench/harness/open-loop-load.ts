import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { roundTo } from './bench-result.ts';

/** One kind of request the load sends (every request is the same). */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called with each answer's status and body (the body is read only when this is given). */
  onResponse?: (status: number, body: string) => void;
}

/** Latency percentiles, ms, each request timed from the moment it was due. */
export interface OpenLoopLatency {
  answers: number;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

export interface OpenLoopResult {
  /** Requests sent (rate × seconds). */
  sent: number;
  /** Answers by status code; a request that failed without an answer counts under 'error'. */
  statuses: Record<string, number>;
  /** Of the 2xx answers, timed from each request's due time to the end of its answer. */
  latency: OpenLoopLatency;
  /** How late the generator itself sent requests (ms past their due time): a starved load process shows here. */
  sendLagP99: number;
  sendLagMax: number;
}

/**
 * A constant-rate, open-loop load: request i is due at start + i / rate, whatever the answers before it did, and its
 * latency is counted from that due time, so a request that waited for a free connection or for this process to get
 * a core is counted as late, not left out (the measurement wrk2 and vegeta make).
 *
 * Why not autocannon at a rate: given `overallRate`, each of its connections sends
 * its share of a second back to back at every one-second tick (lib/httpClient.js), so "100 req/s over 50 connections"
 * is a burst of 50 requests at the same instant, then 50 more as the first answers come back, then a second of
 * nothing. Its p99 was the wait at the back of that burst — the queue the load itself made — not what a request
 * arriving at 100 req/s meets (on one server at 100 req/s: a p99 of 99–114 ms from those bursts, 5–6 ms from this load).
 */
export async function openLoopLoad(options: {
  url: string;
  rate: number;
  seconds: number;
  connections: number;
  request: LoadRequest;
}): Promise<OpenLoopResult> {
  const { rate, seconds, connections } = options;
  const target = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const { method, path, headers = {}, body, onResponse } = options.request;
  const requestHeaders =
    body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  const times: number[] = [];
  const lags: number[] = [];
  const statuses: Record<string, number> = {};
  const count = (status: string) => (statuses[status] = (statuses[status] ?? 0) + 1);

  const send = (dueAt: number) =>
    new Promise<void>((resolve) => {
      lags.push(performance.now() - dueAt);
      const outgoing = request(
        { host: target.hostname, port: target.port, method, path, headers: requestHeaders, agent },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => {
            if (onResponse) chunks.push(chunk);
          });
          answer.on('end', () => {
            const status = answer.statusCode ?? 0;
            count(String(status));
            if (status >= 200 && status < 300) times.push(performance.now() - dueAt);
            onResponse?.(status, Buffer.concat(chunks).toString('utf8'));
            resolve();
          });
        },
      );
      outgoing.on('error', () => {
        count('error');
        resolve();
      });
      outgoing.end(body);
    });

  // Open the connections first, so that the first second is not timed with their handshakes.
  await Promise.all(Array.from({ length: connections }, () => warmUp(target, agent)));

  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const startAt = performance.now() + 5;
  const inFlight: Promise<void>[] = [];
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && startAt + next * interval <= now) {
        inFlight.push(send(startAt + next * interval));
        next += 1;
      }
      if (next >= total) return resolve();
      setTimeout(tick, Math.max(0, startAt + next * interval - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  agent.destroy();
  const sortedLags = lags.sort((a, b) => a - b);
  return {
    sent: total,
    statuses,
    latency: percentiles(times),
    sendLagP99: roundTo(at(sortedLags, 0.99) ?? 0),
    sendLagMax: roundTo(sortedLags.at(-1) ?? 0),
  };
}

function warmUp(target: URL, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: target.hostname, port: target.port, method: 'GET', path: '/healthz', agent },
      (answer) => {
        answer.resume();
        answer.on('end', resolve);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function percentiles(times: number[]): OpenLoopLatency {
  if (times.length === 0) return { answers: 0, p50: null, p99: null, max: null };
  const sorted = times.sort((a, b) => a - b);
  return {
    answers: sorted.length,
    p50: roundTo(at(sorted, 0.5)!),
    p99: roundTo(at(sorted, 0.99)!),
    max: roundTo(sorted.at(-1)!),
  };
}

/** The nearest-rank percentile of sorted values. */
function at(sorted: number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}
