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

/** Who may import lib/fast/ from outside it: the fused pipeline. */
const FAST_IMPORTERS = new Set(['lib/pipeline/events-stage.ts']);

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

/** Every module a runtime loads from `entry` (relative imports that load a module), and the other specifiers they import. */
function reachable(entry: string): { files: string[]; external: string[] } {
  const files = new Set<string>();
  const external: string[] = [];
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const src = readFileSync(join(repoRoot, file), 'utf8');
    for (const m of src.matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+'([^']+)'/gms)) {
      const braces = /^\{([^}]*)\}$/.exec(m[2]!.trim());
      const typeOnly = m[1] !== undefined || (braces !== null && braces[1]!.split(',').every((n) => n.trim() === '' || n.trim().startsWith('type ')));
      if (typeOnly) continue;
      const spec = m[3]!;
      if (spec.startsWith('.')) visit(relative(repoRoot, normalize(join(dirname(join(repoRoot, file)), spec.replace(/\.js$/, '.ts')))));
      else external.push(`${file} -> ${spec}`);
    }
    // a dynamic import or require would load one too
    for (const m of src.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]/g)) external.push(`${file} -> ${m[1]!} (dynamic)`);
  };
  visit(entry);
  return { files: [...files].sort(), external };
}

/** Code without comments and string literals (what a global named in them would be). */
function codeOf(src: string): string {
  return src
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
}

t.test('the web entry (lib/web/index.ts) reaches no Node built-in, no package, and no Node global but through lib/bytes/node.ts', (t) => {
  const { files, external } = reachable('lib/web/index.ts');
  t.ok(files.includes('lib/pipeline/output-stage.ts') && files.includes('lib/bytes/web.ts'), `${files.length} modules, the fused stage among them`);
  t.same(external, [], 'nothing but relative imports (node:stream, node:buffer, split2… would not load in a browser)');
  const globals = files
    .filter((f) => f !== 'lib/bytes/node.ts')
    .flatMap((f) => {
      const hits = codeOf(readFileSync(join(repoRoot, f), 'utf8')).match(/\b(?:Buffer|process|setImmediate|__dirname|__filename)\b/g);
      return hits === null ? [] : [`${f}: ${[...new Set(hits)].join(', ')}`];
    });
  t.same(globals, [], "no Node global (Buffer goes through lib/bytes/, picked at load: a browser has none)");
  t.end();
});

t.test('the web entry exports what the Node entry does, but the node:stream shells', async (t) => {
  const node = Object.keys(await import('../lib/index.js')).sort();
  const web = Object.keys(await import('../lib/web/index.js')).sort();
  // The Node Transforms (node:stream), records mode (node:fs), and the Node-only stage record behind compose()
  const NODE_ONLY = [
    'autoFramer', 'byteStageTransform', 'compose', 'createStream', 'decoder', 'encoder', 'finalAccumulator', 'finalToRow', 'jsonArrayFramer',
    'jsonValuesFramer', 'messageDecoder', 'ndjsonFramer', 'normalizer', 'objectStageTransform', 'records', 'recordToRows', 'RecordsTransform',
    'ROW_COLUMNS', 'signatureAccumulator', 'sseFramer', 'StageTransform', 'textAccumulator', 'toolArgsAccumulator', 'usageAccumulator',
  ];
  t.same(node.filter((k) => !web.includes(k) && !NODE_ONLY.includes(k)), [], 'every other export of the Node entry is in the web entry');
  t.same(web.filter((k) => !node.includes(k)), [], 'and the web entry has nothing the Node entry lacks');
});
