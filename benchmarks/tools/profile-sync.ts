/**
 * Synchronous loop of the fused final stage over one fixture, for `node --cpu-prof` (not a test).
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx benchmarks/tools/profile-sync.ts /tmp/fx/anthropic-messages.single [repeat] [events|final]
 */
import { readFileSync } from 'node:fs';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { wirefoldOptions, type FixtureStats } from '../generate.js';

const file = process.argv[2]!;
const repeat = Number(process.argv[3] ?? 20);
const output = (process.argv[4] ?? 'final') as 'final' | 'events';
const data = readFileSync(file);
const stats = JSON.parse(readFileSync(file + '.stats.json', 'utf8')) as FixtureStats;
const chunks: Uint8Array[] = [];
const size = Number(process.env.CHUNK ?? 65536);
for (let i = 0; i < data.length; i += size) chunks.push(new Uint8Array(data.buffer, data.byteOffset + i, Math.min(size, data.length - i)));
let n = 0;
const emit = (): void => {
  n++;
};
const t0 = performance.now();
for (let r = 0; r < repeat; r++) {
  const s = createOutputStage({ ...wirefoldOptions(stats.dialect), output });
  for (const c of chunks) s.push(c, emit);
  s.end(emit);
}
const ms = performance.now() - t0;
process.stderr.write(`${repeat} × ${(data.length / 1048576).toFixed(1)} MiB: ${((repeat * data.length) / 1048576 / (ms / 1000)).toFixed(0)} MB/s (${n} items)\n`);
