/**
 * One implementation per process (not a test): the fused final (or events)
 * stage of the lib/ under `dir` over one fixture, `runs` times after a warm-up,
 * median and best MB/s. Run it for two trees in separate processes, alternating,
 * when an in-process A/B (ab.ts) is too noisy (GC-heavy fixtures).
 *
 *   npx tsx benchmarks/tools/solo.ts <dir> <fixture> [runs] [events|final|text] [chunk bytes]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { wirefoldOptions, type FixtureStats } from '../generate.js';
import type { createOutputStage as CreateOutputStage } from '../../lib/pipeline/create-stream.js';

const [dir, file] = [process.argv[2]!, process.argv[3]!];
const runs = Number(process.argv[4] ?? 20);
const output = (process.argv[5] ?? 'final') as 'final' | 'events' | 'text';
const size = Number(process.argv[6] ?? 65536);
const { createOutputStage } = (await import(resolve(dir, 'lib/pipeline/create-stream.ts'))) as { createOutputStage: typeof CreateOutputStage };
const data = readFileSync(file);
const stats = JSON.parse(readFileSync(file + '.stats.json', 'utf8')) as FixtureStats;
const chunks: Uint8Array[] = [];
for (let i = 0; i < data.length; i += size) chunks.push(new Uint8Array(data.buffer, data.byteOffset + i, Math.min(size, data.length - i)));
const times: number[] = [];
for (let r = 0; r < runs + 5; r++) {
  const t = performance.now();
  const s = createOutputStage({ ...wirefoldOptions(stats.dialect), output });
  let n = 0;
  const emit = (): void => {
    n++;
  };
  for (const c of chunks) s.push(c, emit);
  s.end(emit);
  if (r >= 5) times.push(performance.now() - t);
  if (n === 0) throw new Error('no output');
}
times.sort((a, b) => a - b);
const mb = data.length / 1048576;
console.log(`${dir}: median ${(mb / (times[times.length >> 1]! / 1000)).toFixed(0)} MB/s, best ${(mb / (times[0]! / 1000)).toFixed(0)} MB/s`);
