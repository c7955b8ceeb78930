/**
 * `npm run bench`: generate the fixtures if missing, run ONE worker process
 * per fixture (all methods of that fixture alternate inside it), then write
 * benchmarks/RESULTS.md and benchmarks/results.svg.
 *
 *   tsx benchmarks/run.ts [--size 8MB] [--slow-size 8MB] [--runs 5] [--warmup 1]
 *                         [--chunks 65536,1536] [--dialect a,b] [--shape single,log]
 *                         [--profile english,multilingual] [--multilingual-slow]
 *                         [--methods a,b] [--seed 1] [--out FILE.md] [--svg FILE.svg] [--quick]
 *                         [--forced-gc]
 *
 * Text profiles (`--profile`, both by default): the English-words fixtures
 * (single response and log), and single-response fixtures of multilingual
 * text (mostly non-ASCII, emoji, long deltas; see generate.ts) in their own
 * sections and targets. The multilingual workers leave out the slow peers
 * (Vercel AI SDK, @google/genai: minutes per fixture at 8 MiB) unless
 * `--multilingual-slow` is given.
 *
 * `--forced-gc`: a forced full GC (`gc()`) before every run, as earlier
 * versions of this benchmark did. V8 then discards most optimized code, so
 * every run re-warms the JIT; that costs code with many functions (wirefold,
 * the SDKs) far more than a three-function floor, and no service forces GCs,
 * so it is off by default (see the notes in RESULTS.md).
 *
 * `--quick` (npm run bench:quick): 1 MB fixtures, 3 runs, results written
 * under benchmarks/.fixtures/ so the committed RESULTS.md is left alone.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  defaultFixtureDir,
  FIXTURE_DIALECTS,
  FIXTURE_PROFILES,
  FIXTURE_SHAPES,
  formatSize,
  parseSize,
  profileOf,
  writeFixture,
  type FixtureDialect,
  type FixtureFile,
  type FixtureProfile,
  type FixtureShape,
} from './generate.js';
import { detailTable, DIALECT_ORDER, fixtureLabel, machineInfo, summaryTable, svgChart, targetChecks, transcodeChecks, transcodeTable } from './report.js';
import type { WorkerOutput } from './worker.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');

export const DEFAULT_BENCH_SIZE = 8 * 1024 * 1024;

function arg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === undefined) throw new Error(`${name} needs a value`);
  return v;
}

function runWorker(args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(here, 'worker.ts'), ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolvePromise() : reject(new Error(`worker exited with ${code ?? signal}`))));
  });
}

function peerVersions(): string[] {
  const names = ['openai', '@anthropic-ai/sdk', '@google/genai', 'ai', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/google', 'eventsource-parser', 'stream-json'];
  return names.map((n) => {
    try {
      const p = JSON.parse(readFileSync(join(repoRoot, 'node_modules', n, 'package.json'), 'utf8')) as { version: string };
      return `${n}@${p.version}`;
    } catch {
      return `${n} (not installed)`;
    }
  });
}

/** Keeps hand-written sections of an existing RESULTS.md (between `<!-- NAME:begin -->` and `<!-- NAME:end -->`). */
export function keptSection(existing: string, name: string, fallback: string): string {
  const re = new RegExp(`<!-- ${name}:begin -->[\\s\\S]*?<!-- ${name}:end -->`);
  const m = re.exec(existing);
  return m !== null ? m[0] : `<!-- ${name}:begin -->\n${fallback}\n<!-- ${name}:end -->`;
}

/** Fast methods run until their timed runs add up to this (see worker.ts). */
const MIN_TIMED_MS = 2000;

/** CPU time the hypervisor took from this virtual machine so far (the `steal` column of /proc/stat), or null off Linux. */
function stolenSeconds(): number | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    const steal = Number(cpu[8]);
    return cpu[0] === 'cpu' && Number.isFinite(steal) ? steal / 100 : null; // USER_HZ ticks
  } catch {
    return null;
  }
}

async function main(argv: string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const size = parseSize(arg(argv, '--size') ?? (quick ? '1MB' : formatSize(DEFAULT_BENCH_SIZE)));
  const slowSize = parseSize(arg(argv, '--slow-size') ?? formatSize(size));
  const runs = Number(arg(argv, '--runs') ?? (quick ? '3' : '5'));
  const warmup = Number(arg(argv, '--warmup') ?? '1');
  const maxRuns = runs * 5;
  const chunks = (arg(argv, '--chunks') ?? '65536,1536').split(',').map(Number);
  const seed = Number(arg(argv, '--seed') ?? '1');
  const dialects = (arg(argv, '--dialect')?.split(',') ?? [...FIXTURE_DIALECTS]) as FixtureDialect[];
  const shapes = (arg(argv, '--shape')?.split(',') ?? [...FIXTURE_SHAPES]) as FixtureShape[];
  const methods = arg(argv, '--methods');
  const profiles = (arg(argv, '--profile')?.split(',') ?? [...FIXTURE_PROFILES]) as FixtureProfile[];
  for (const p of profiles) if (!FIXTURE_PROFILES.includes(p)) throw new Error(`unknown profile ${p} (${FIXTURE_PROFILES.join(', ')})`);
  const multilingualSlow = argv.includes('--multilingual-slow');
  const forcedGc = argv.includes('--forced-gc');
  const outMd = resolve(arg(argv, '--out') ?? (quick ? join(defaultFixtureDir, 'RESULTS.quick.md') : join(here, 'RESULTS.md')));
  const outSvg = resolve(arg(argv, '--svg') ?? (quick ? join(defaultFixtureDir, 'results.quick.svg') : join(here, 'results.svg')));
  const command = `npm run ${quick ? 'bench:quick' : 'bench'}${argv.filter((a) => a !== '--quick').length > 0 ? ' -- ' + argv.filter((a) => a !== '--quick').join(' ') : ''}`;
  const t0 = performance.now();
  const load0 = loadavg()[0]!;
  const steal0 = stolenSeconds();

  // 1. fixtures (English words: every shape; multilingual text: single responses)
  const fixtures: { main: FixtureFile; slow: FixtureFile | null; profile: FixtureProfile }[] = [];
  for (const profile of FIXTURE_PROFILES.filter((p) => profiles.includes(p))) {
    for (const dialect of DIALECT_ORDER.filter((d) => dialects.includes(d))) {
      for (const shape of shapes) {
        if (profile === 'multilingual' && shape !== 'single') continue;
        const main = writeFixture({ dialect, shape, size, seed, profile });
        const slow = slowSize !== size && shape === 'single' && (profile === 'english' || multilingualSlow) ? writeFixture({ dialect, shape, size: slowSize, seed, profile }) : null;
        fixtures.push({ main, slow, profile });
      }
    }
  }
  process.stderr.write(`fixtures ready (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);

  // 2. one worker process per fixture
  const outputs: WorkerOutput[] = [];
  const tmpDir = join(defaultFixtureDir, 'results');
  mkdirSync(tmpDir, { recursive: true });
  for (const { main, slow, profile } of fixtures) {
    const out = join(tmpDir, `${main.stats.dialect}.${main.stats.shape}${profile === 'english' ? '' : `.${profile}`}.json`);
    process.stderr.write(`\n${relative(repoRoot, main.path)} (${(main.stats.bytes / 2 ** 20).toFixed(1)} MiB, ${main.stats.frames} wire events)\n`);
    const args = ['--fixture', main.path, '--out', out, '--runs', String(runs), '--max-runs', String(maxRuns), '--min-timed-ms', String(MIN_TIMED_MS), '--warmup', String(warmup), '--chunks', chunks.join(',')];
    if (slow !== null) args.push('--slow-fixture', slow.path);
    if (methods !== undefined) args.push('--methods', methods);
    if (profile === 'multilingual' && !multilingualSlow) args.push('--no-slow');
    if (forcedGc) args.push('--forced-gc');
    try {
      await runWorker(args);
      outputs.push(JSON.parse(readFileSync(out, 'utf8')) as WorkerOutput);
    } catch (err) {
      process.stderr.write(`  ${(err as Error).message}\n`);
    }
  }
  const wall = (performance.now() - t0) / 1000;

  // 3. report
  const info = machineInfo(command);
  const existing = existsSync(outMd) ? readFileSync(outMd, 'utf8') : '';
  const singles = outputs.filter((o) => o.stats.shape === 'single');
  const multilingual = singles.filter((o) => profileOf(o.stats) === 'multilingual');
  const logs = outputs.filter((o) => o.stats.shape === 'log');
  const checks = [...targetChecks(singles, chunks), ...transcodeChecks(outputs, chunks)];
  const chunkName = (c: number): string => (c % 1024 === 0 ? `${c / 1024} KiB` : `${(c / 1024).toFixed(1)} KiB`);
  const md: string[] = [];
  md.push('# wirefold benchmark results');
  md.push('');
  md.push(`Generated by \`${command}\` (benchmarks/run.ts) — do not edit the tables by hand; the notes section is kept across runs.`);
  md.push('');
  md.push('| | |');
  md.push('|---|---|');
  md.push(`| machine | ${info.cores} cores (\`nproc\`), ${info.cpu}${info.memory === '' ? '' : `, ${info.memory} RAM`} |`);
  md.push(`| Node | ${info.node} |`);
  md.push(`| date | ${info.date} |`);
  md.push(`| command | \`${command}\` (total ${wall.toFixed(0)} s) |`);
  md.push(`| chunk sizes | ${chunks.map(chunkName).join(', ')} (each run: a mocked \`fetch\` returns a \`Response\` whose body ReadableStream enqueues the fixture in chunks of this size) |`);
  md.push(`| fixture size | ${formatSize(size)} per fixture, seed ${seed}${slowSize !== size ? `; slow peers (Vercel AI SDK, @google/genai) on a ${formatSize(slowSize)} fixture of the same generator` : '; every method reads the same bytes'} |`);
  const loads = outputs.flatMap((o) => o.loadAvg ?? []);
  md.push(`| load | 1-min load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${loads.length > 0 ? `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} across workers` : ''} on ${info.cores} cores${Math.max(load0, ...loads) > info.cores * 0.75 ? ' — **other processes were running: timings are noisy**' : ''} |`);
  const steal1 = stolenSeconds();
  if (steal0 !== null && steal1 !== null) {
    const share = (steal1 - steal0) / (wall * info.cores);
    md.push(`| steal | ${(steal1 - steal0).toFixed(1)} s of CPU time taken by the hypervisor during the run (\`/proc/stat\`), ${(share * 100).toFixed(1)} % of ${info.cores} cores × the run's wall time${share > 0.05 ? ' — **a contended host: timings are noisy**' : ''} |`);
  }
  md.push(`| runs | median of ${runs} timed runs, or more for a fast method (until its timed runs add up to ${MIN_TIMED_MS / 1000} s, at most ${maxRuns}); before them, untimed warm-up runs (in a fixed order): at least ${warmup} per method, more (up to 6) until a method has run 500 ms; methods alternate in one process per fixture, in a new seeded order each timed round (a fixed order let the heap's mark-compacts fall on the same method round after round); the floor and wirefold's methods run the same rounds (while one needs more runs, all of them run); GC pauses are recorded per run in the results JSON; ${forcedGc ? 'a forced GC before every run (`--forced-gc`)' : 'no forced GC between runs (a run pays the GC pauses that fall in it: mostly for its own garbage, partly for the run before; `--forced-gc` forces one before every run)'} |`);
  md.push(`| peers | ${peerVersions().join(', ')} |`);
  md.push('');
  md.push('MB/s means MiB (2^20 bytes) of wire bytes per second on the median run; `(n×)` is the ratio to the floor on the same fixture and chunk size. Every method checks its output against the generator (wire event count, text length, tool calls, responses) and is reported as "check failed" instead of a number when it does not match.');
  md.push('');
  for (const cs of chunks) {
    md.push(`## Single long response, ${chunkName(cs)} chunks`);
    md.push('');
    md.push(summaryTable(singles, 'single', cs));
    md.push('');
  }
  if (multilingual.length > 0) {
    for (const cs of chunks) {
      md.push(`## Single long response, multilingual text, ${chunkName(cs)} chunks`);
      md.push('');
      md.push(
        `The same wire shapes, with text that is mostly non-ASCII (accented Latin, Vietnamese partly in combining marks, CJK, Hangul, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Thai; emoji with ZWJ sequences, skin tones, flags; other astral characters; Gemini's \`\\u003c\`/\`\\u003e\` escapes) cut at code points into short deltas and, some of the time, deltas of hundreds of characters (generate.ts, profile \`multilingual\`: about 55 % of the text's code points and 75 % of its UTF-8 bytes are non-ASCII; the fixtures table below has the delta counts).${multilingualSlow ? '' : ' The slow peers (Vercel AI SDK, @google/genai) are not run on these (`--multilingual-slow` runs them).'}`,
      );
      md.push('');
      md.push(summaryTable(multilingual, 'single', cs, 'multilingual'));
      md.push('');
    }
  }
  if (logs.length > 0) {
    for (const cs of chunks) {
      md.push(`## Log of many responses back to back, ${chunkName(cs)} chunks`);
      md.push('');
      md.push('Official SDKs and the Vercel AI SDK read one response per request, so they are not run on logs.');
      md.push('');
      md.push(summaryTable(logs, 'log', cs));
      md.push('');
    }
  }
  const transcoding = [
    ...chunks.map((cs) => ({ title: `single long response, ${chunkName(cs)} chunks`, table: transcodeTable(singles, 'single', cs) })),
    ...chunks.map((cs) => ({ title: `single long response, multilingual text, ${chunkName(cs)} chunks`, table: transcodeTable(multilingual, 'single', cs, 'multilingual') })),
    ...chunks.map((cs) => ({ title: `log of many responses, ${chunkName(cs)} chunks`, table: transcodeTable(logs, 'log', cs) })),
  ].filter((t) => t.table !== '');
  for (const [i, t] of transcoding.entries()) {
    md.push(`## Transcoding, ${t.title}`);
    md.push('');
    if (i === 0) {
      md.push("`createStream({ to })`: the fixture's bytes read and written as the target's wire. MB/s of input (the ratio to the reading floor of the same run; bold: under 0.5×), then the target's bytes per input byte.");
      md.push('');
    }
    md.push(t.table);
    md.push('');
  }
  md.push('![throughput chart](results.svg)');
  md.push('');
  md.push('## Targets');
  md.push('');
  md.push('| fixture | chunk | target | measured | |');
  md.push('|---|---:|---|---:|---|');
  for (const c of checks) md.push(`| ${c.fixture} | ${chunkName(c.chunkSize)} | ${c.target} | ${c.value} | ${c.pass === true ? 'pass' : c.pass === false ? '**miss**' : ''} |`);
  md.push('');
  md.push('## Memory');
  md.push('');
  md.push(keptSection(existing, 'memory', '_Run `npm run bench:memory` to fill this section._'));
  md.push('');
  md.push('## Notes');
  md.push('');
  md.push(keptSection(existing, 'notes', '_Analysis goes here._'));
  md.push('');
  md.push('## Fixtures');
  md.push('');
  md.push('| fixture | bytes | wire events | responses | text deltas | text chars | reasoning deltas | tool calls | tool-arg fragments |');
  md.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const o of outputs) {
    for (const s of [o.stats, ...(o.slowStats === null ? [] : [o.slowStats])]) {
      md.push(
        `| ${fixtureLabel(s)}${s === o.slowStats ? ' (slow peers)' : ''} | ${s.bytes.toLocaleString('en-US')} | ${s.frames.toLocaleString('en-US')} | ${s.responses} | ${s.textDeltas.toLocaleString('en-US')} | ${s.textChars.toLocaleString('en-US')} | ${s.reasoningDeltas.toLocaleString('en-US')} | ${s.toolCalls} | ${s.toolArgDeltas.toLocaleString('en-US')} |`,
      );
    }
  }
  md.push('');
  md.push('## Details per fixture');
  md.push('');
  md.push(`Peak RSS Δ: median over runs of the highest RSS sampled (every 64 KiB of input) above the RSS at the start of the run (${forcedGc ? 'after a forced GC' : 'no forced GC: garbage of the previous run may still be held, so these are rough; \`npm run bench:memory\` measures memory properly'}). The whole fixture is held in memory by the worker and is not counted.`);
  md.push('');
  for (const o of outputs) {
    md.push(`<details><summary>${fixtureLabel(o.stats)} — worker ${o.wallSeconds.toFixed(0)} s, max RSS ${o.maxRssMiB.toFixed(0)} MiB, load ${(o.loadAvg ?? [NaN, NaN]).map((x) => x.toFixed(1)).join(' → ')}</summary>`);
    md.push('');
    md.push(detailTable(o));
    md.push('');
    md.push('</details>');
    md.push('');
  }
  mkdirSync(dirname(outMd), { recursive: true });
  writeFileSync(outMd, md.join('\n'));
  const chartChunk = chunks.includes(65536) ? 65536 : chunks[0]!;
  writeFileSync(outSvg, svgChart(outputs, chartChunk, `wirefold vs peers — single long response, ${formatSize(size)} fixtures, ${chunkName(chartChunk)} chunks, Node ${process.version}`));

  // 4. console summary
  process.stdout.write(`\n${summaryTable(singles, 'single', chunks[0]!)}\n\n`);
  if (multilingual.length > 0) process.stdout.write(`multilingual text:\n${summaryTable(multilingual, 'single', chunks[0]!, 'multilingual')}\n\n`);
  const misses = checks.filter((c) => c.pass === false);
  process.stdout.write(`targets: ${checks.filter((c) => c.pass === true).length} met, ${misses.length} missed\n`);
  for (const c of misses) process.stdout.write(`  miss: ${c.fixture} @${chunkName(c.chunkSize)}: ${c.target}: ${c.value}\n`);
  process.stdout.write(`wrote ${relative(process.cwd(), outMd)} and ${relative(process.cwd(), outSvg)} in ${wall.toFixed(0)} s\n`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
