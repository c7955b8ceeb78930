/**
 * Instructions per warm run of createStream({ to }) for two trees, and of the
 * reading floor (not a test). instructions.ts's method (valgrind, V8 in its
 * predictable mode, (W + R) − W runs over R; read its header), but through the
 * Transform as a service runs it: the fixture's chunks from a Readable into
 * createStream({ to }) and out to a Writable, so that what the Transform does
 * with the stage's output (encoding strings, queueing each item) is counted too.
 * Each tree's compiled `dist/` (build it first: `npx tsc -p <dir>/tsconfig.json`).
 *
 *   [TI_W=10 TI_R=15] npx tsx benchmarks/tools/transcode-instructions.ts <dirA> <dirB> <fixture> <target> [chunk bytes]
 *
 * The floor's count (TextDecoder, indexOf framing, JSON.parse, from the same Readable) is printed
 * alongside: floor ÷ a tree's count is the instruction ratio to the floor.
 */
import { execFile } from 'node:child_process';
import { basename, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const [a, b, fixture, to] = [process.argv[2]!, process.argv[3]!, process.argv[4]!, process.argv[5]!];
const chunk = process.argv[6] ?? '65536';
/** Warm-up and counted runs (env TI_W, TI_R): with W = 10 a count can still catch V8 recompiling (see RESULTS.md, fifth pass). */
const W = Number(process.env['TI_W'] ?? 10);
const R = Number(process.env['TI_R'] ?? 15);

/** One process: `runs` + W runs over Buffer chunks of the fixture (`to` 'floor': the SSE reading floor). */
const RUNNER = `
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
const [dir, file, runs, size, warm, to] = process.argv.slice(1);
const dialect = JSON.parse(readFileSync(file + '.stats.json', 'utf8')).dialect;
const options = dialect === 'gemini-json-array' ? { dialect: 'gemini', framing: 'json-array' } : dialect === 'gemini-sse' ? { dialect: 'gemini' } : { dialect };
const data = readFileSync(file);
const chunks = [];
for (let i = 0; i < data.length; i += Number(size)) chunks.push(data.subarray(i, i + Number(size)));
const sep = dialect === 'gemini-sse' ? '\\r\\n\\r\\n' : '\\n\\n';
async function floor() {
  const dec = new TextDecoder();
  let rest = '';
  for await (const c of Readable.from(chunks)) {
    const text = rest + dec.decode(c, { stream: true });
    let start = 0;
    for (let end = text.indexOf(sep); end !== -1; end = text.indexOf(sep, start)) {
      const ev = text.slice(start, end);
      start = end + sep.length;
      const d = ev.indexOf('data:');
      if (d === -1) continue;
      let e = ev.indexOf('\\n', d);
      if (e === -1) e = ev.length;
      if (ev.charCodeAt(e - 1) === 13) e--;
      const s = ev.slice(d + (ev.charCodeAt(d + 5) === 32 ? 6 : 5), e);
      if (s !== '[DONE]') JSON.parse(s);
    }
    rest = text.slice(start);
  }
}
const { createStream } = to === 'floor' ? {} : await import(dir + '/dist/pipeline/create-stream.js');
async function transcode() {
  let n = 0;
  await pipeline(Readable.from(chunks), createStream({ ...options, to }), new Writable({ write(c, _e, cb) { n += c.length; cb(); } }));
  if (n === 0) throw new Error('nothing written');
}
for (let r = 0; r < Number(runs) + Number(warm); r++) await (to === 'floor' ? floor() : transcode());
`;

/** Instructions valgrind counted for `dir` with `runs` runs after the W warm-ups. */
async function count(dir: string, runs: number, what: string): Promise<number> {
  const args = ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null'];
  args.push(process.execPath, '--single-threaded', '--predictable', '--predictable-gc-schedule', '--input-type=module');
  args.push('--eval', RUNNER, resolve(dir), resolve(fixture), String(runs), chunk, String(W), what);
  const { stderr } = await run('valgrind', args, { maxBuffer: 1 << 24 });
  const m = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  if (m === null) throw new Error(`no instruction count from valgrind for ${dir}:\n${stderr.slice(-2000)}`);
  return Number(m[1]!.replace(/,/g, ''));
}

async function perRun(dir: string, what: string): Promise<number> {
  return ((await count(dir, R, what)) - (await count(dir, 0, what))) / R;
}

const [ia, ib] = await Promise.all([perRun(a, to), perRun(b, to)]);
const fl = await perRun(a, 'floor');
const m = (n: number): string => `${(n / 1e6).toFixed(1)} M`;
console.log(
  `${basename(fixture)} → ${to} at ${chunk}-byte chunks: A ${m(ia)}, B ${m(ib)} instructions a run; B/A ${(ib / ia).toFixed(4)}; ` +
    `floor ${m(fl)} (floor/A ${(fl / ia).toFixed(2)}, floor/B ${(fl / ib).toFixed(2)})`,
);
