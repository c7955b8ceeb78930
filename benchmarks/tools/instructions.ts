/**
 * Instructions per run of the fused final stage (or of the separate stages,
 * mode `stages`) for two trees (not a test).
 * On this machine CPU time moves by ±10–30 % between identical runs; the
 * instructions valgrind counts with V8 in its predictable mode (one thread, a
 * fixed GC schedule) repeat to 0.01 %. Each tree's compiled `dist/` (build it
 * first: `npx tsc -p <dir>/tsconfig.json`) runs under valgrind twice, with
 * W + R and with W runs over the fixture's chunks (W = 10, R = 15): the
 * difference over R is the count of one warm run. (With W = 5, R = 5 the
 * optimizing compiler was still at work in the counted runs: 96 M a run on
 * the 1 MB Interactions fixture against 56 M from run 11 on.) The two trees run side by side (one
 * per core): a count does not depend on the load. Needs valgrind (Debian:
 * valgrind); about two minutes per pair on a 1 MB fixture.
 *
 * Instructions are not time: page faults, cache misses and memory bandwidth
 * (large joins, fresh buffers) do not show, so confirm a change that moves
 * memory with CPU time as well (solo.ts, alternating).
 *
 *   npx tsx benchmarks/tools/instructions.ts <dirA> <dirB> <fixture> [chunk bytes] [final|stages]
 *
 * `stages`: a framer → decoder() → normalizer() → finalAccumulator() in
 * stream.pipeline, as the benchmark's `wirefold-stages` method runs them
 * (each run awaited: the stream hops are part of the count). `cores`: the
 * same four Transforms' stages (their `.stage`) chained as function calls,
 * no stream: `stages` minus `cores` is what the stream hops cost.
 */
import { execFile } from 'node:child_process';
import { basename, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const [a, b, fixture] = [process.argv[2]!, process.argv[3]!, process.argv[4]!];
const chunk = process.argv[5] ?? '65536';
const mode = process.argv[6] ?? 'final';
if (mode !== 'final' && mode !== 'stages' && mode !== 'cores') throw new Error(`mode: final, stages or cores, not ${mode}`);
/** Warm-up and counted runs (env INSTR_WARM, INSTR_RUNS): 40 and 20 leave V8's compiler out of the count where 10 and 15 did not always. */
const W = Number(process.env['INSTR_WARM'] ?? 10);
const R = Number(process.env['INSTR_RUNS'] ?? 15);

/** One process: `runs` + W runs of the fused final stage of `dir`/dist over Buffer chunks of the fixture. */
const FINAL_RUNNER = `
import { readFileSync } from 'node:fs';
const [dir, file, runs, size, warm] = process.argv.slice(1);
const { createOutputStage } = await import(dir + '/dist/pipeline/create-stream.js');
const dialect = JSON.parse(readFileSync(file + '.stats.json', 'utf8')).dialect;
const options = dialect === 'gemini-json-array' ? { dialect: 'gemini', framing: 'json-array' } : dialect === 'gemini-sse' ? { dialect: 'gemini' } : { dialect };
const data = readFileSync(file);
const chunks = [];
for (let i = 0; i < data.length; i += Number(size)) chunks.push(data.subarray(i, i + Number(size)));
const emit = () => {};
for (let r = 0; r < Number(runs) + Number(warm); r++) {
  const s = createOutputStage({ ...options, output: 'final' });
  for (const c of chunks) s.push(c, emit);
  s.end(emit);
}
`;

/** What the two stage runners share: the package's index, the fixture's chunks, the framer and dialect for it. */
const STAGES_PREAMBLE = `
const [dir, file, runs, size, warm] = process.argv.slice(1);
const w = await import(dir + '/dist/index.js');
const dialect = JSON.parse(readFileSync(file + '.stats.json', 'utf8')).dialect;
const array = dialect === 'gemini-json-array';
const name = array || dialect === 'gemini-sse' ? 'gemini' : dialect;
const data = readFileSync(file);
const chunks = [];
for (let i = 0; i < data.length; i += Number(size)) chunks.push(data.subarray(i, i + Number(size)));
`;

/** The same with the separate stages in stream.pipeline (the benchmark's `wirefold-stages`). */
const STAGES_RUNNER = `
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
${STAGES_PREAMBLE}for (let r = 0; r < Number(runs) + Number(warm); r++) {
  let finals = 0;
  const sink = new Writable({ objectMode: true, write(_f, _e, cb) { finals++; cb(); } });
  await pipeline(Readable.from(chunks), array ? w.jsonArrayFramer() : w.sseFramer(), w.decoder(), w.normalizer({ dialect: name }), w.finalAccumulator(), sink);
  if (finals === 0) throw new Error('no final');
}
`;
/** The same stages' cores chained as function calls. */
const CORES_RUNNER = `
import { readFileSync } from 'node:fs';
${STAGES_PREAMBLE}for (let r = 0; r < Number(runs) + Number(warm); r++) {
  let finals = 0;
  const [f, d, n, a] = [array ? w.jsonArrayFramer() : w.sseFramer(), w.decoder(), w.normalizer({ dialect: name }), w.finalAccumulator()].map((t) => t.stage);
  const toSink = () => { finals++; };
  const toA = (ev) => a.push(ev, toSink);
  const toN = (pe) => n.push(pe, toA);
  const toD = (fr) => d.push(fr, toN);
  for (const c of chunks) f.push(c, toD);
  f.end(toD); d.end(toN); n.end(toA); a.end(toSink);
  if (finals === 0) throw new Error('no final');
}
`;
const RUNNER = mode === 'stages' ? STAGES_RUNNER : mode === 'cores' ? CORES_RUNNER : FINAL_RUNNER;

/** Instructions valgrind counted for `dir` with `runs` runs after the W warm-ups. */
async function count(dir: string, runs: number): Promise<number> {
  const args = ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null'];
  args.push(process.execPath, '--single-threaded', '--predictable', '--predictable-gc-schedule', '--input-type=module');
  args.push('--eval', RUNNER, resolve(dir), resolve(fixture), String(runs), chunk, String(W));
  const { stderr } = await run('valgrind', args, { maxBuffer: 1 << 24 });
  const m = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  if (m === null) throw new Error(`no instruction count from valgrind for ${dir}:\n${stderr.slice(-2000)}`);
  return Number(m[1]!.replace(/,/g, ''));
}

async function perRun(dir: string): Promise<number> {
  return ((await count(dir, R)) - (await count(dir, 0))) / R;
}

const [ia, ib] = await Promise.all([perRun(a), perRun(b)]);
const m = (n: number): string => `${(n / 1e6).toFixed(1)} M`;
console.log(`${basename(fixture)} at ${chunk}-byte chunks, ${mode}: A ${m(ia)}, B ${m(ib)} instructions a run; B/A ${(ib / ia).toFixed(4)}`);
