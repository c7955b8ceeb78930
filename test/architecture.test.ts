/**
 * The layout rules of lib/ (issue 33), checked on the source: no runtime
 * import cycle, the fast path in lib/fast/ imported only by the fused
 * pipeline, no arrow from a lower folder back up, no `as unknown as`.
 */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { repoRoot } from './helpers/corpus.js';

const lib = join(repoRoot, 'lib');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

interface Edge {
  to: string;
  /** Only types are imported: no module is loaded at run time. */
  typeOnly: boolean;
}

/** Each file's relative imports (and re-exports), by repository path. */
const graph = new Map<string, Edge[]>();
for (const file of walk(lib)) {
  const src = readFileSync(file, 'utf8');
  const edges: Edge[] = [];
  for (const m of src.matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+'(\.[^']+)'/gms)) {
    const names = m[2]!;
    const braces = /^\{([^}]*)\}$/.exec(names.trim());
    const allTypes = braces !== null && braces[1]!.split(',').every((n) => n.trim() === '' || n.trim().startsWith('type '));
    const to = relative(repoRoot, normalize(join(dirname(file), m[3]!.replace(/\.js$/, '.ts'))));
    edges.push({ to, typeOnly: m[1] !== undefined || allTypes });
  }
  graph.set(relative(repoRoot, file), edges);
}

t.test('the import graph was read', (t) => {
  t.ok(graph.size > 80, `${graph.size} files`);
  t.ok([...graph.values()].some((e) => e.some((x) => x.typeOnly)), 'type-only imports are told apart');
  t.end();
});

t.test('no runtime import cycle in lib/', (t) => {
  // Tarjan's strongly connected components over the imports that load a module
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const { to, typeOnly } of graph.get(v) ?? []) {
      if (typeOnly || !graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v)!, index.get(to)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) cycles.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  t.same(cycles, []);
  t.end();
});

/** Who may import lib/fast/ from outside it: the fused pipeline, and (until the fast normalizer is its own module) the normalizer. */
const FAST_IMPORTERS = new Set(['lib/pipeline/events-stage.ts', 'lib/dialects/normalizer.ts']);

t.test('lib/fast/ is imported only by the fused pipeline; nothing it imports imports it back', (t) => {
  const outside: string[] = [];
  for (const [from, edges] of graph) {
    if (from.startsWith('lib/fast/')) continue;
    for (const e of edges) if (e.to.startsWith('lib/fast/') && !e.typeOnly && !FAST_IMPORTERS.has(from)) outside.push(`${from} -> ${e.to}`);
  }
  t.same(outside, []);
  t.end();
});

t.test('no arrow runs back up: framing imports no dialect, accumulator or pipeline module; accumulators no dialect or pipeline module', (t) => {
  const up: string[] = [];
  const rules: [string, string[]][] = [
    ['lib/framing/', ['lib/dialects/', 'lib/accumulate/', 'lib/pipeline/', 'lib/fast/', 'lib/cli/', 'lib/doctor/']],
    ['lib/accumulate/', ['lib/dialects/', 'lib/pipeline/', 'lib/fast/', 'lib/cli/', 'lib/doctor/']],
    ['lib/dialects/', ['lib/accumulate/', 'lib/pipeline/', 'lib/cli/', 'lib/doctor/']],
    ['lib/pipeline/', ['lib/cli/', 'lib/doctor/']],
  ];
  for (const [from, edges] of graph) {
    for (const [folder, banned] of rules) {
      if (!from.startsWith(folder)) continue;
      for (const e of edges) if (!e.typeOnly && banned.some((b) => e.to.startsWith(b))) up.push(`${from} -> ${e.to}`);
    }
  }
  t.same(up, []);
  t.end();
});

t.test('no `as unknown as` in lib/', (t) => {
  const hits = walk(lib).filter((f) => readFileSync(f, 'utf8').includes('as unknown as')).map((f) => relative(repoRoot, f));
  t.same(hits, []);
  t.end();
});
