/**
 * A/B of the fused final stage (not a test): the working tree's lib/ against a
 * copy of another revision's (`git archive <rev> lib | tar -x -C <dir>`), and
 * the floor, run synchronously over the same 64 KiB chunks, alternating, medians.
 *
 *   npx tsx test/perf/ab.ts <baseDir> <fixture> [runs] [events|final]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { llmstreamOptions, type FixtureStats } from '../../benchmarks/generate.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';

const [baseDir, file] = [process.argv[2]!, process.argv[3]!];
const runs = Number(process.argv[4] ?? 11);
const output = (process.argv[5] ?? 'final') as 'final' | 'events';
const base = (await import(resolve(baseDir, 'lib/pipeline/create-stream.ts'))) as { createOutputStage: typeof createOutputStage };
const data = readFileSync(file);
const stats = JSON.parse(readFileSync(file + '.stats.json', 'utf8')) as FixtureStats;
const opts = llmstreamOptions(stats.dialect);
const chunks: Uint8Array[] = [];
for (let i = 0; i < data.length; i += 65536) chunks.push(new Uint8Array(data.buffer, data.byteOffset + i, Math.min(65536, data.length - i)));

export function floorSse(): number {
  const sep = stats.dialect === 'gemini-sse' ? '\r\n\r\n' : '\n\n';
  const dec = new TextDecoder();
  let buf = '';
  let frames = 0;
  const scan = (): void => {
    let start = 0;
    for (;;) {
      const end = buf.indexOf(sep, start);
      if (end === -1) break;
      const d = buf.indexOf('data:', start);
      if (d !== -1 && d < end) {
        let s = d + 5;
        if (buf.charCodeAt(s) === 32) s++;
        let e = buf.indexOf('\n', s);
        if (e === -1 || e > end) e = end;
        if (buf.charCodeAt(e - 1) === 13) e--;
        const text = buf.slice(s, e);
        frames++;
        if (text !== '[DONE]') JSON.parse(text);
      }
      start = end + sep.length;
    }
    if (start > 0) buf = buf.slice(start);
  };
  for (const c of chunks) {
    buf += dec.decode(c, { stream: true });
    scan();
  }
  buf += dec.decode();
  scan();
  return frames;
}

export function floorJsonArray(): number {
  const dec = new TextDecoder();
  let buf = '';
  let pos = 0;
  let depth = 0;
  let inString = false;
  let elemStart = -1;
  let frames = 0;
  const scan = (): void => {
    const len = buf.length;
    while (pos < len) {
      if (inString) {
        const q = buf.indexOf('"', pos);
        if (q === -1) {
          pos = len;
          break;
        }
        let k = q - 1;
        while (buf.charCodeAt(k) === 92) k--;
        pos = q + 1;
        if (((q - 1 - k) & 1) === 0) inString = false;
        continue;
      }
      const c = buf.charCodeAt(pos);
      if (c === 34) inString = true;
      else if (c === 123 || c === 91) {
        if (++depth === 2) elemStart = pos;
      } else if (c === 125 || c === 93) {
        if (--depth === 1 && elemStart >= 0) {
          JSON.parse(buf.slice(elemStart, pos + 1));
          frames++;
          elemStart = -1;
        }
      }
      pos++;
    }
    const keep = elemStart >= 0 ? elemStart : pos;
    if (keep > 0) {
      buf = buf.slice(keep);
      pos -= keep;
      if (elemStart >= 0) elemStart = 0;
    }
  };
  for (const c of chunks) {
    buf += dec.decode(c, { stream: true });
    scan();
  }
  buf += dec.decode();
  scan();
  return frames;
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
  ['floor', stats.dialect === 'gemini-json-array' ? floorJsonArray : floorSse],
  ['base', runWith(base.createOutputStage)],
  ['new', runWith(createOutputStage)],
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
