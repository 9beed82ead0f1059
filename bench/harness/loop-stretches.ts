// The synchronous stretches of an event loop, from a V8 CPU profile (`node --cpu-prof`, e.g. bench/accept-delivery.ts
// --cpu-prof DIR): runs of samples with no "(idle)" between them, i.e. the time the thread ran JavaScript, native code
// or GC without returning to the event loop's poll. Requests arriving meanwhile wait at least that long. For each of the
// longest stretches, the source files that took its time (the innermost frame under src/, else the innermost frame's
// file or V8's own name), so a stretch can be put down to starting pushes, reading HTTP/2 answers, SQL or the API.
//
//   node --import tsx bench/harness/loop-stretches.ts FILE.cpuprofile [--from µs] [--to µs] [--top 15]
// --from and --to are on the profile's clock (CLOCK_MONOTONIC in µs, as bench/accept-delivery.ts prints its phases).
//
// Sample times are wall time: on a machine where the process waits for a core, a stretch includes that wait.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { from: { type: 'string' }, to: { type: 'string' }, top: { type: 'string' } },
});
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
const fromMs = values.from ? (Number(values.from) - profile.startTime) / 1000 : 0;
const toMs = values.to ? (Number(values.to) - profile.startTime) / 1000 : Number.POSITIVE_INFINITY;
const top = Number(values.top ?? 15);

const parent = new Map<number, number>();
const byId = new Map<number, ProfileNode>();
for (const node of profile.nodes) {
  byId.set(node.id, node);
  for (const child of node.children ?? []) parent.set(child, node.id);
}
const labelCache = new Map<number, string>();
/** Where a sample's time goes: the innermost frame in src/ (file:function), else the innermost frame's file. */
function labelOf(id: number): string {
  const cached = labelCache.get(id);
  if (cached !== undefined) return cached;
  const leaf = byId.get(id)!;
  let label: string | null = null;
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)!.callFrame;
    const match = /\/(?:src|dist)\/(.+)$/.exec(frame.url);
    if (match) {
      label = `${match[1]}:${frame.functionName || '(anonymous)'}`;
      break;
    }
  }
  if (label === null) {
    const url = leaf.callFrame.url;
    label = url
      ? url.replace(/^.*node_modules\//, '').replace(/^node:internal\//, 'node:')
      : leaf.callFrame.functionName;
  }
  labelCache.set(id, label);
  return label;
}

interface Stretch {
  startMs: number;
  ms: number;
  labels: Map<string, number>;
}
const stretches: Stretch[] = [];
let current: Stretch | null = null;
let at = 0;
for (let index = 0; index < profile.samples.length; index += 1) {
  at += profile.timeDeltas[index]! / 1000;
  // A sample's weight is the time to the next one.
  const weight = (profile.timeDeltas[index + 1] ?? 0) / 1000;
  const node = byId.get(profile.samples[index]!)!;
  const idle = node.callFrame.functionName === '(idle)';
  if (at < fromMs || at > toMs || idle) {
    if (current) stretches.push(current);
    current = null;
    continue;
  }
  current ??= { startMs: at, ms: 0, labels: new Map() };
  current.ms += weight;
  const label = labelOf(node.id);
  current.labels.set(label, (current.labels.get(label) ?? 0) + weight);
}
if (current) stretches.push(current);

const windowMs = Math.min(toMs, at) - fromMs;
const busyMs = stretches.reduce((sum, stretch) => sum + stretch.ms, 0);
const sorted = [...stretches].sort((a, b) => a.ms - b.ms);
const quantile = (fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]?.ms ?? 0;
// Time-weighted: the share of busy time spent in stretches at least this long (what a request arriving at a random busy moment meets).
const busyIn = (minMs: number) =>
  stretches.filter((stretch) => stretch.ms >= minMs).reduce((sum, stretch) => sum + stretch.ms, 0) / busyMs;
console.log(
  JSON.stringify({
    windowMs: Math.round(windowMs),
    busyShare: Number((busyMs / windowMs).toFixed(3)),
    stretches: stretches.length,
    p50Ms: Number(quantile(0.5).toFixed(2)),
    p99Ms: Number(quantile(0.99).toFixed(2)),
    maxMs: Number(quantile(1).toFixed(2)),
    busyShareInStretchesOver10Ms: Number(busyIn(10).toFixed(3)),
    busyShareInStretchesOver50Ms: Number(busyIn(50).toFixed(3)),
  }),
);
for (const stretch of [...stretches].sort((a, b) => b.ms - a.ms).slice(0, top)) {
  const parts = [...stretch.labels.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([label, ms]) => `${label} ${ms.toFixed(1)}`);
  console.log(`${stretch.ms.toFixed(1)} ms at ${(stretch.startMs / 1000).toFixed(2)} s: ${parts.join(' | ')}`);
}

/** Total busy time by label over the window, for the whole picture. */
const totals = new Map<string, number>();
for (const stretch of stretches)
  for (const [label, ms] of stretch.labels) totals.set(label, (totals.get(label) ?? 0) + ms);
console.log('busy time by label (ms):');
for (const [label, ms] of [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`  ${ms.toFixed(0).padStart(7)} ${label}`);
