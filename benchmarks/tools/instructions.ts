/**
 * Instructions per run of the fused final stage for two trees (not a test).
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
 *   npx tsx benchmarks/tools/instructions.ts <dirA> <dirB> <fixture> [chunk bytes]
 */
import { execFile } from 'node:child_process';
import { basename, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const [a, b, fixture] = [process.argv[2]!, process.argv[3]!, process.argv[4]!];
const chunk = process.argv[5] ?? '65536';
const W = 10;
const R = 15;

/** One process: `runs` + W runs of the fused final stage of `dir`/dist over Buffer chunks of the fixture. */
const RUNNER = `
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
console.log(`${basename(fixture)} at ${chunk}-byte chunks: A ${m(ia)}, B ${m(ib)} instructions a run; B/A ${(ib / ia).toFixed(4)}`);
