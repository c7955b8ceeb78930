/**
 * Where final mode's cost over events mode goes (not a test): plain events
 * stage, guarded events stage, guarded events → a no-op stage, → the final
 * accumulator; synchronous over the same 64 KiB chunks, alternating, medians.
 *
 *   npx tsx benchmarks/tools/final-cost.ts /tmp/fx/anthropic-messages.single [runs]
 */
import { readFileSync } from 'node:fs';
import { wirefoldOptions, type FixtureStats } from '../generate.js';
import { createEventsStage } from '../../lib/pipeline/events-stage.js';
import { createGuardedEventsStage, createOutputStage } from '../../lib/pipeline/create-stream.js';
import { chain, type Stage } from '../../lib/stage.js';
import type { UnifiedEvent } from '../../lib/events.js';

const file = process.argv[2]!;
const runs = Number(process.argv[3] ?? 15);
const data = readFileSync(file);
const stats = JSON.parse(readFileSync(file + '.stats.json', 'utf8')) as FixtureStats;
const opts = wirefoldOptions(stats.dialect);
const chunks: Uint8Array[] = [];
for (let i = 0; i < data.length; i += 65536) chunks.push(new Uint8Array(data.buffer, data.byteOffset + i, Math.min(65536, data.length - i)));

let sink = 0;
const emit = (): void => {
  sink++;
};
function run(s: Stage<Uint8Array, unknown>): void {
  for (const c of chunks) s.push(c, emit);
  s.end(emit);
}
const noop: () => Stage<UnifiedEvent, never> = () => ({ push() {}, end() {} });
const fns: [string, () => void][] = [
  ['events', () => run(createEventsStage(opts) as Stage<Uint8Array, unknown>)],
  ['guarded', () => run(createGuardedEventsStage(opts) as Stage<Uint8Array, unknown>)],
  ['guarded→noop', () => run(chain(createGuardedEventsStage(opts), noop()) as Stage<Uint8Array, unknown>)],
  ['final', () => run(createOutputStage({ ...opts, output: 'final' }) as Stage<Uint8Array, unknown>)],
];
const times = new Map<string, number[]>(fns.map(([n]) => [n, []]));
for (const [, f] of fns) f();
for (let r = 0; r < runs; r++) {
  for (const [n, f] of r % 2 === 0 ? fns : [...fns].reverse()) {
    const t = performance.now();
    f();
    times.get(n)!.push(performance.now() - t);
  }
}
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const [n] of fns) console.log(`${n.padEnd(14)} ${med(times.get(n)!).toFixed(1).padStart(7)} ms`);
if (sink < 0) console.log(sink);
