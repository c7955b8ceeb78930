/**
 * A/B of two trees' fused stage (not a test): each side is a directory holding
 * a compiled `dist/` (`git archive <rev> lib tsconfig.json package.json`,
 * `npx tsc -p <dir>/tsconfig.json`: other sessions' unfinished edits in the
 * working tree are in neither), or else its `lib/` sources run through tsx
 * (with its tsconfig.json beside them: without it tsx compiles them
 * differently and they run ~10 % slower). Floor, A and B alternate
 * synchronously over the same chunks (A and B swap places every round:
 * whichever runs second was measured faster); medians, and the ratio of the
 * best runs.
 *
 *   npx tsx benchmarks/tools/ab.ts <dirA> <dirB> <fixture> [runs] [chunk bytes] [events|final]
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { floorFor, runFloorSync } from '../floor.js';
import { wirefoldOptions, type FixtureStats } from '../generate.js';
import type { createOutputStage } from '../../lib/pipeline/create-stream.js';

type Make = typeof createOutputStage;
const [dirA, dirB, file] = [process.argv[2]!, process.argv[3]!, process.argv[4]!];
const runs = Number(process.argv[5] ?? 11);
const size = Number(process.argv[6] ?? 65536);
const output = (process.argv[7] ?? 'final') as 'final' | 'events';

async function load(dir: string): Promise<Make> {
  const dist = resolve(dir, 'dist/pipeline/create-stream.js');
  const path = existsSync(dist) ? dist : resolve(dir, 'lib/pipeline/create-stream.ts');
  return ((await import(path)) as { createOutputStage: Make }).createOutputStage;
}

const [makeA, makeB] = [await load(dirA), await load(dirB)];
const data = readFileSync(file);
const stats = JSON.parse(readFileSync(file + '.stats.json', 'utf8')) as FixtureStats;
const opts = wirefoldOptions(stats.dialect);
const chunks: Uint8Array[] = [];
for (let i = 0; i < data.length; i += size) chunks.push(new Uint8Array(data.buffer, data.byteOffset + i, Math.min(size, data.length - i)));

function runWith(make: Make): () => void {
  return () => {
    const s = make({ ...opts, output });
    let n = 0;
    const emit = (): void => {
      n++;
    };
    for (const c of chunks) s.push(c, emit);
    s.end(emit);
    if (output === 'final' && n !== stats.responses) throw new Error(`got ${n} results`);
  };
}

const fns: [string, () => unknown][] = [
  ['floor', () => runFloorSync(floorFor(stats.dialect), chunks)],
  ['A', runWith(makeA)],
  ['B', runWith(makeB)],
];
const times = new Map<string, number[]>(fns.map(([n]) => [n, []]));
for (const [, f] of fns) f();
for (let r = 0; r < runs; r++) {
  const order = r % 2 === 0 ? fns : [fns[0]!, fns[2]!, fns[1]!];
  for (const [n, f] of order) {
    const t = performance.now();
    f();
    times.get(n)!.push(performance.now() - t);
  }
}
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const min = (xs: number[]): number => Math.min(...xs);
const fl = med(times.get('floor')!);
const mb = data.length / 1048576;
const line = fns
  .map(([n]) => {
    const m = med(times.get(n)!);
    return `${n} ${(mb / (m / 1000)).toFixed(0)} MB/s (${(fl / m).toFixed(2)}×, best ${(min(times.get('floor')!) / min(times.get(n)!)).toFixed(2)}×)`;
  })
  .join('  ');
console.log(`${stats.dialect}.${stats.shape} at ${size}: ${line}`);
