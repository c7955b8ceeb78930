/**
 * Perf check for the fused pipeline against the parsing floor (not a test):
 * the same mocked fetch body (64 KiB chunks) read by the floor (TextDecoder +
 * indexOf framing + JSON.parse, a copy of benchmarks/methods.ts's) and by
 * createStream({ output: 'final' }), alternating, median of N runs.
 *
 *   npx tsx benchmarks/tools/bench.ts [--size 6MB] [--runs 7] [--chunk 65536] [--dialects a,b] [--shapes single,log] [--fast off] [--base DIR]
 *
 * `--base DIR` also runs the createStream of a copy of another revision's lib/
 * (`git archive <rev> lib | tar -x -C DIR`) in the same rotation: before/after in one run.
 */
import { floorFor, runFloor } from '../floor.js';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FinalResult } from '../../lib/accumulate/types.js';
import { createStream } from '../../lib/pipeline/create-stream.js';
import { FIXTURE_DIALECTS, generateToBuffer, wirefoldOptions, type FixtureDialect, type FixtureShape, type FixtureStats } from '../generate.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}
const size = Number((arg('--size') ?? '6MB').replace(/MB$/i, '')) * 1024 * 1024;
const runs = Number(arg('--runs') ?? 7);
const chunkSize = Number(arg('--chunk') ?? 65536);
const dialects = (arg('--dialects')?.split(',') ?? [...FIXTURE_DIALECTS]) as FixtureDialect[];
const shapes = (arg('--shapes')?.split(',') ?? ['single', 'log']) as FixtureShape[];
const extra = arg('--fast') === 'off' ? { fastPath: false } : {};
const baseDir = arg('--base');
const baseCreate = baseDir === undefined ? undefined : ((await import(resolve(baseDir, 'lib/pipeline/create-stream.ts'))) as { createStream: typeof createStream }).createStream;

function body(data: Buffer): ReadableStream<Uint8Array> {
  let pos = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pos >= data.length) {
        controller.close();
        return;
      }
      const end = Math.min(pos + chunkSize, data.length);
      controller.enqueue(new Uint8Array(data.buffer, data.byteOffset + pos, end - pos));
      pos = end;
    },
  });
}

async function floor(data: Buffer, dialect: FixtureDialect): Promise<number> {
  const res = new Response(body(data));
  return runFloor(floorFor(dialect), res.body as unknown as AsyncIterable<Uint8Array>);
}

async function final(data: Buffer, dialect: FixtureDialect, stats: FixtureStats, create: typeof createStream = createStream): Promise<number> {
  let n = 0;
  let text = 0;
  let errors = 0;
  const res = new Response(body(data));
  await (pipeline as unknown as (...s: unknown[]) => Promise<void>)(
    res.body,
    create({ ...wirefoldOptions(dialect), output: 'final', ...extra }),
    new Writable({
      objectMode: true,
      write(r: FinalResult, _e, cb) {
        n++;
        text += r.text.length;
        errors += r.errors.length;
        cb();
      },
    }),
  );
  if (n !== stats.responses || text !== stats.textChars || errors !== 0) throw new Error(`check failed: ${n} ${text} ${errors}`);
  return n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const rows: string[] = [];
for (const shape of shapes) {
  for (const dialect of dialects) {
    const { data, stats } = generateToBuffer({ dialect, shape, size, seed: 1 });
    const methods: [string, () => Promise<number>][] = [
      ['floor', () => floor(data, dialect)],
      ...(baseCreate === undefined ? [] : [['before', () => final(data, dialect, stats, baseCreate)] as [string, () => Promise<number>]]),
      ['final', () => final(data, dialect, stats)],
    ];
    const times = new Map<string, number[]>(methods.map(([n]) => [n, []]));
    for (const [, m] of methods) await m();
    for (let i = 0; i < runs; i++) {
      for (const [n, m] of methods) {
        const t = performance.now();
        await m();
        times.get(n)!.push(performance.now() - t);
      }
    }
    const mb = data.length / 1048576;
    const fl = median(times.get('floor')!);
    const cells = methods.map(([n]) => {
      const m = median(times.get(n)!);
      return `${n} ${(mb / (m / 1000)).toFixed(0).padStart(4)} MB/s${n === 'floor' ? '' : ` (${(fl / m).toFixed(2)}×)`}`;
    });
    const line = `${shape.padEnd(6)} ${dialect.padEnd(20)} ${cells.join('  ')}`;
    console.log(line);
    rows.push(line);
  }
}
