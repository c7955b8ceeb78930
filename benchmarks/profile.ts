/**
 * CPU profile of the fused final pipeline (createStream({ output: 'final' })).
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx benchmarks/profile.ts --fixture F [--mode final|events] [--repeat 10] [--chunk 65536]
 *   npx tsx benchmarks/profile.ts --analyze /tmp/prof/<file>.cpuprofile [--top 25]
 *
 * The first form reads the fixture `--repeat` times through the same mocked
 * fetch Response body as the benchmark; the second prints the top functions
 * by self time (and the share of the profile per source file).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createStream } from './package.js';
import { wirefoldOptions, type FixtureStats } from './generate.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function arg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

export function analyze(profile: CpuProfile, top = 25): string {
  const self = new Map<string, number>();
  const perFile = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  for (const [id, us] of dt) {
    const n = byId.get(id)!;
    const f = n.callFrame;
    const file = f.url === '' ? '(native / V8)' : f.url.replace(/^file:\/\/.*?\/(lib|benchmarks|node_modules)\//, '$1/').replace(/\?.*$/, '');
    const key = `${f.functionName === '' ? '(anonymous)' : f.functionName}  ${file}${f.url === '' ? '' : `:${f.lineNumber + 1}`}`;
    self.set(key, (self.get(key) ?? 0) + us);
    const fileKey = file.startsWith('node:') ? 'node: internals' : file.replace(/^(node_modules\/[^/]+).*$/, '$1');
    perFile.set(fileKey, (perFile.get(fileKey) ?? 0) + us);
    total += us;
  }
  // inclusive time per function (each sample counted once per distinct function on its stack)
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of dt) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (f.url === '' || f.url.startsWith('node:')) continue;
      const key = `${f.functionName === '' ? '(anonymous)' : f.functionName}  ${f.url.replace(/^file:\/\/.*?\/(lib|benchmarks|node_modules)\//, '$1/').replace(/\?.*$/, '')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const lines: string[] = [];
  lines.push(`total sampled: ${(total / 1000).toFixed(0)} ms`);
  lines.push('');
  lines.push('| self % | self ms | function | where |');
  lines.push('|---:|---:|---|---|');
  for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const [fn, where] = k.split('  ');
    lines.push(`| ${((us / total) * 100).toFixed(1)} | ${(us / 1000).toFixed(0)} | \`${fn}\` | ${where} |`);
  }
  lines.push('');
  lines.push('| total % | function (inclusive of callees; lib/ only) | where |');
  lines.push('|---:|---|---|');
  for (const [k, us] of [...inclusive].filter(([k]) => k.includes('lib/')).sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const [fn, where] = k.split('  ');
    lines.push(`| ${((us / total) * 100).toFixed(1)} | \`${fn}\` | ${where} |`);
  }
  lines.push('');
  lines.push('| self % | file |');
  lines.push('|---:|---|');
  for (const [k, us] of [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 15)) lines.push(`| ${((us / total) * 100).toFixed(1)} | ${k} |`);
  return lines.join('\n');
}

async function run(argv: string[]): Promise<void> {
  const fixture = arg(argv, '--fixture');
  if (fixture === undefined) throw new Error('--fixture F or --analyze P');
  const mode = (arg(argv, '--mode') ?? 'final') as 'final' | 'events';
  const repeat = Number(arg(argv, '--repeat') ?? '10');
  const chunkSize = Number(arg(argv, '--chunk') ?? '65536');
  const stats = JSON.parse(readFileSync(fixture + '.stats.json', 'utf8')) as FixtureStats;
  const data = readFileSync(fixture);
  const t0 = performance.now();
  for (let r = 0; r < repeat; r++) {
    let pos = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pos >= data.length) return c.close();
        const end = Math.min(pos + chunkSize, data.length);
        c.enqueue(new Uint8Array(data.buffer, data.byteOffset + pos, end - pos));
        pos = end;
      },
    });
    let n = 0;
    await (pipeline as unknown as (...s: unknown[]) => Promise<void>)(
      new Response(body).body,
      createStream({ ...wirefoldOptions(stats.dialect), output: mode }),
      new Writable({
        objectMode: true,
        write(_x, _e, cb) {
          n++;
          cb();
        },
      }),
    );
    if (mode === 'final' && n !== stats.responses) throw new Error(`got ${n} results, expected ${stats.responses}`);
  }
  const s = (performance.now() - t0) / 1000;
  process.stderr.write(`${repeat} × ${(data.length / 2 ** 20).toFixed(1)} MiB in ${s.toFixed(2)} s: ${((repeat * data.length) / 2 ** 20 / s).toFixed(1)} MB/s\n`);
}

const argv = process.argv.slice(2);
const target = arg(argv, '--analyze');
if (target !== undefined) {
  const path = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => `${target}/${f}`)
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!
    : target;
  process.stdout.write(analyze(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, Number(arg(argv, '--top') ?? '25')) + '\n');
} else {
  run(argv).catch((err: unknown) => {
    process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  });
}
