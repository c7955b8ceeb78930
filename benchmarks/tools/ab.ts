/**
 * A/B of the fused final stage (not a test): the working tree's lib/ against a
 * copy of another revision's (`git archive <rev> lib tsconfig.json package.json | tar -x -C <dir>`: without the tsconfig tsx compiles it differently and it runs ~10 % slower), and
 * the floor, run synchronously over the same 64 KiB chunks, alternating, medians.
 *
 *   npx tsx benchmarks/tools/ab.ts <baseDir> <fixture> [runs] [events|final]
 */
import { floorFor, runFloorSync } from '../floor.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { wirefoldOptions, type FixtureStats } from '../generate.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';

const [baseDir, file] = [process.argv[2]!, process.argv[3]!];
const runs = Number(process.argv[4] ?? 11);
const output = (process.argv[5] ?? 'final') as 'final' | 'events';
const base = (await import(resolve(baseDir, 'lib/pipeline/create-stream.ts'))) as { createOutputStage: typeof createOutputStage };
const data = readFileSync(file);
const stats = JSON.parse(readFileSync(file + '.stats.json', 'utf8')) as FixtureStats;
const opts = wirefoldOptions(stats.dialect);
const chunks: Uint8Array[] = [];
for (let i = 0; i < data.length; i += 65536) chunks.push(new Uint8Array(data.buffer, data.byteOffset + i, Math.min(65536, data.length - i)));

export function floor(): number {
  return runFloorSync(floorFor(stats.dialect), chunks);
}

function runWith(make: typeof createOutputStage): () => void {
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
  ['floor', floor],
  ['base', runWith(base.createOutputStage)],
  ['new', runWith(createOutputStage)],
];
const times = new Map<string, number[]>(fns.map(([n]) => [n, []]));
for (const [, f] of fns) f();
for (let r = 0; r < runs; r++) {
  // alternate the order of base and new: whichever runs second was measured faster
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
    return `${n} ${(mb / (m / 1000)).toFixed(0)} MB/s (${(fl / m).toFixed(2)}×, best ${(min(times.get("floor")!) / min(times.get(n)!)).toFixed(2)}×)`;
  })
  .join('  ');
console.log(`${stats.dialect}.${stats.shape}: ${line}`);
