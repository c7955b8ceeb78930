/**
 * Synchronous cost breakdown of the fused pipeline on one fixture (not a test):
 * floor (TextDecoder + indexOf + JSON.parse), framer only, framer + JSON.parse,
 * events stage, final stage — each timed over the same 64 KiB chunks, alternating.
 *
 *   npx tsx benchmarks/tools/parts.ts /tmp/fx/anthropic-messages.single [runs] [--fast off]
 */
import { floorFor, runFloorSync } from '../floor.js';
import { readFileSync } from 'node:fs';
import { createFramer } from '../../lib/framing/detect.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { createEventsStage } from '../../lib/pipeline/events-stage.js';
import { wirefoldOptions, type FixtureStats } from '../generate.js';

const file = process.argv[2]!;
const runs = Number(process.argv[3] ?? 9);
const extra = process.argv.includes('off') ? { fastPath: false } : {};
const data = readFileSync(file);
const stats = JSON.parse(readFileSync(file + '.stats.json', 'utf8')) as FixtureStats;
const opts = wirefoldOptions(stats.dialect);
const chunks: Uint8Array[] = [];
for (let i = 0; i < data.length; i += 65536) chunks.push(new Uint8Array(data.buffer, data.byteOffset + i, Math.min(65536, data.length - i)));

function floor(): void {
  runFloorSync(floorFor(stats.dialect), chunks);
}

let sink = 0;
function framerOnly(): void {
  const f = createFramer(opts.framing);
  const emit = (fr: { data: string }): void => {
    sink += fr.data.length;
  };
  for (const c of chunks) f.push(c, emit);
  f.end(emit);
}
function framerParse(): void {
  const f = createFramer(opts.framing);
  const emit = (fr: { data: string }): void => {
    if (fr.data !== '[DONE]') JSON.parse(fr.data);
  };
  for (const c of chunks) f.push(c, emit);
  f.end(emit);
}
function events(): void {
  const s = createEventsStage({ ...opts, ...extra } as never);
  const emit = (): void => {
    sink++;
  };
  for (const c of chunks) s.push(c, emit);
  s.end(emit);
}
function final(): void {
  const s = createOutputStage({ ...opts, output: 'final', ...extra } as never);
  let n = 0;
  const emit = (): void => {
    n++;
  };
  for (const c of chunks) s.push(c, emit);
  s.end(emit);
  if (n !== stats.responses) throw new Error('bad count');
}

const fns: [string, () => void][] = [
  ['floor', floor],
  ['framer', framerOnly],
  ['framer+parse', framerParse],
  ['events', events],
  ['final', final],
];
const times = new Map<string, number[]>(fns.map(([n]) => [n, []]));
for (const [, f] of fns) f();
for (let r = 0; r < runs; r++) {
  for (const [n, f] of fns) {
    const t = performance.now();
    f();
    times.get(n)!.push(performance.now() - t);
  }
}
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const fl = med(times.get('floor')!);
const mb = data.length / 1048576;
for (const [n] of fns) {
  const m = med(times.get(n)!);
  console.log(`${n.padEnd(14)} ${m.toFixed(1).padStart(7)} ms  ${(mb / (m / 1000)).toFixed(0).padStart(5)} MB/s  floor/this ${(fl / m).toFixed(2)}`);
}
