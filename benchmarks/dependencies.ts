/**
 * Why the hot path does not use split2, stream-json or pumpify, measured:
 *   npm run bench:deps
 * 1. split2 vs wirefold's NDJSON byte scanner on one multi-megabyte line fed in
 *    64 KiB chunks (OpenAI Responses `*.done` events repeat the whole text).
 * 2. stream-json (parser + StreamArray) vs wirefold's JSON-array scanner +
 *    JSON.parse on a Gemini-style pretty-printed array.
 * 3. pumpify of 4 pass-through Transforms vs stream.pipeline of the same 4, per object.
 * Prints one line per comparison with the ratio; each checks its own output.
 */
import { PassThrough, Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pumpify from 'pumpify';
import split2 from 'split2';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import { createNdjsonFramer } from '../lib/framing/ndjson.js';
import { createJsonArrayFramer } from '../lib/framing/json-array.js';

function chunk(buf: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size));
  return out;
}

async function time(fn: () => Promise<number> | number): Promise<{ ms: number; n: number }> {
  const t0 = performance.now();
  const n = await fn();
  return { ms: performance.now() - t0, n };
}

async function median(runs: number, fn: () => Promise<number> | number): Promise<{ ms: number; n: number }> {
  const results: { ms: number; n: number }[] = [];
  for (let i = 0; i < runs; i++) results.push(await time(fn));
  results.sort((a, b) => a.ms - b.ms);
  return results[Math.floor(runs / 2)]!;
}

function report(name: string, a: string, ra: { ms: number }, b: string, rb: { ms: number }, bytes?: number): void {
  const rate = (r: { ms: number }): string => (bytes === undefined ? `${r.ms.toFixed(1)} ms` : `${(bytes / 1048576 / (r.ms / 1000)).toFixed(1)} MB/s`);
  console.log(`${name}: ${a} ${rate(ra)} · ${b} ${rate(rb)} · ${(rb.ms / ra.ms).toFixed(1)}× in favour of ${a}`);
}

async function splitLines(): Promise<void> {
  const line = `{"type":"response.output_text.done","text":"${'lorem ipsum dolor sit amet '.repeat(Math.ceil((4 << 20) / 27))}"}\n`;
  const input = chunk(Buffer.from(line.repeat(2)), 64 * 1024);
  const ours = await median(3, () => {
    const framer = createNdjsonFramer({ maxFrameBytes: 64 << 20 });
    let n = 0;
    for (const c of input) framer.push(c, () => n++);
    framer.end(() => n++);
    return n;
  });
  const theirs = await median(3, async () => {
    let n = 0;
    await pipeline(Readable.from(input), split2({ maxLength: 64 << 20 }), new Writable({ objectMode: true, write: (_l, _e, cb) => (n++, cb()) }));
    return n;
  });
  if (ours.n !== 2 || theirs.n !== 2) throw new Error(`line counts differ: ${ours.n} vs ${theirs.n}`);
  report('NDJSON, two 4 MB lines in 64 KiB chunks', 'byte scanner', ours, 'split2', theirs, input.reduce((a, c) => a + c.length, 0));
}

async function jsonArray(): Promise<void> {
  const element = (i: number): string =>
    `{\n  "candidates": [\n    {\n      "content": {\n        "parts": [\n          {\n            "text": "chunk ${i} ${'of a long answer with {braces} and \\"quotes\\" '.repeat(8)}"\n          }\n        ],\n        "role": "model"\n      },\n      "index": 0\n    }\n  ],\n  "usageMetadata": {\n    "promptTokenCount": 12,\n    "candidatesTokenCount": ${i},\n    "totalTokenCount": ${12 + i}\n  },\n  "modelVersion": "gemini-2.5-flash",\n  "responseId": "abc"\n}`;
  const parts: string[] = [];
  for (let i = 0; i < 8000; i++) parts.push(element(i));
  const buf = Buffer.from(`[${parts.join('\n,\r\n')}\n]`);
  const input = chunk(buf, 64 * 1024);
  const ours = await median(5, () => {
    const framer = createJsonArrayFramer({ maxFrameBytes: 64 << 20 });
    let n = 0;
    for (const c of input) framer.push(c, (f) => (JSON.parse(f.data), n++));
    framer.end(() => n++);
    return n;
  });
  const theirs = await median(5, async () => {
    let n = 0;
    await pipeline(Readable.from(input), StreamArray.withParser(), new Writable({ objectMode: true, write: (_v, _e, cb) => (n++, cb()) }));
    return n;
  });
  if (ours.n !== 8000 || theirs.n !== 8000) throw new Error(`element counts differ: ${ours.n} vs ${theirs.n}`);
  report('Gemini JSON array, 8000 elements', 'scanner + JSON.parse', ours, 'stream-json', theirs, buf.length);
}

async function composeCost(): Promise<void> {
  const objects = 400_000;
  const pass = (): Transform => new PassThrough({ objectMode: true });
  const source = (): Readable => {
    let i = 0;
    return new Readable({
      objectMode: true,
      read() {
        for (let k = 0; k < 256; k++) {
          if (i++ >= objects) return void this.push(null);
          this.push({ i });
        }
      },
    });
  };
  const sink = (count: { n: number }): Writable => new Writable({ objectMode: true, highWaterMark: 64, write: (_o, _e, cb) => (count.n++, cb()) });
  const viaPipeline = await median(3, async () => {
    const c = { n: 0 };
    await pipeline(source(), pass(), pass(), pass(), pass(), sink(c));
    return c.n;
  });
  const viaPumpify = await median(3, async () => {
    const c = { n: 0 };
    await pipeline(source(), new pumpify.obj(pass(), pass(), pass(), pass()), sink(c));
    return c.n;
  });
  if (viaPipeline.n !== objects || viaPumpify.n !== objects) throw new Error('object counts differ');
  const ns = (r: { ms: number }): string => `${((r.ms * 1e6) / objects).toFixed(0)} ns/object`;
  console.log(
    `4 pass-through Transforms, ${objects} objects: stream.pipeline ${ns(viaPipeline)} · pumpify ${ns(viaPumpify)} · ${(viaPumpify.ms / viaPipeline.ms).toFixed(1)}× in favour of stream.pipeline`,
  );
}

await splitLines();
await jsonArray();
await composeCost();
