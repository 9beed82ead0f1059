import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ClarionMetrics } from '../../src/metrics/clarion-metrics.ts';

const dashboard = JSON.parse(readFileSync(new URL('../../docs/ops/grafana-dashboard.json', import.meta.url), 'utf8'));
const panels = (dashboard.panels as Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>).filter(
  (panel) => panel.type !== 'row',
);

/** Every series name the process exports: counters and gauges by name, histograms by their _bucket, _sum and _count. */
async function exportedSeries(): Promise<Set<string>> {
  const metrics = new ClarionMetrics({ processMetrics: true });
  const series = new Set<string>();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    const type = String(metric.type);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) series.add(`${metric.name}${suffix}`);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) series.add(`${metric.name}${suffix}`);
    else series.add(metric.name);
  }
  return series;
}

describe('docs/ops/grafana-dashboard.json', () => {
  it('is a dashboard with panels that each query Prometheus', () => {
    expect(dashboard.title).toBe('Clarion');
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
  });

  it('names only metrics that Clarion exports, and draws every Clarion metric somewhere', async () => {
    const exported = await exportedSeries();
    const used = new Set<string>();
    for (const panel of panels) {
      for (const { expr } of panel.targets!) {
        const names = expr.match(/\bclarion_[a-z0-9_]+/g) ?? [];
        expect(names.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of names) {
          expect(exported.has(name), `${panel.title}: ${name} is not exported`).toBe(true);
          used.add(name.replace(/_(bucket|sum|count)$/, ''));
        }
      }
    }
    const own = new ClarionMetrics();
    const ownNames = (await own.registry.getMetricsAsJSON()).map((metric) => metric.name);
    expect(ownNames.filter((name) => !used.has(name))).toEqual([]);
  });
});
