import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The top-level folders of src/ form a layered graph (cli → server/worker → http, delivery, webhooks → queue, store →
 * domain, config): an import cycle between two folders means neither can be read, tested or moved without the other.
 * This reads every `import … from '…'` in src/ and fails on any cycle between top-level folders. Files directly in
 * src/ (server.ts, worker.ts) are the wiring on top and belong to no folder.
 */
const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const folderOf = (file: string): string | null => {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? parts[0]! : null;
};

export function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (from === null) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm)) {
      const target = resolve(dirname(file), match[1]!);
      if (!target.startsWith(SRC)) continue;
      const to = folderOf(target);
      if (to === null || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, `${relative(SRC, file)} → ${relative(SRC, target)}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

export function findCycle(graph: Map<string, Map<string, string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('src/ folder layering', () => {
  it('has no import cycle between top-level folders', () => {
    const graph = folderGraph();
    const cycle = findCycle(graph);
    const explain = cycle?.slice(1).map((to, i) => graph.get(cycle[i]!)!.get(to)!);
    expect(explain ?? null, cycle ? `cycle ${cycle.join(' → ')}` : '').toBeNull();
  });

  it('detects a cycle when there is one (the check itself can fail)', () => {
    const graph = new Map([
      ['http', new Map([['webhooks', 'a']])],
      ['webhooks', new Map([['http', 'b']])],
    ]);
    expect(findCycle(graph)).toEqual(['http', 'webhooks', 'http']);
  });
});
