// The part of autocannon's programmatic API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
  }
  interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    onResponse?: (status: number, body: string) => void;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    overallRate?: number;
    /** Off: with a rate, each answer is recorded with an expected interval of 1 ms (bench/harness/paced-load.ts). */
    ignoreCoordinatedOmission?: boolean;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: RequestSpec[];
  }
  export interface Result {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  /** The run: a promise of its result that also emits each answer ('response': client, status, bytes, ms). */
  interface Instance extends Promise<Result> {
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, responseTime: number) => void): Instance;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
