/**
 * `npm run bench:memory`: peak RSS while wirefold reads a 1 GB log generated
 * on the fly (a Readable over the seeded generator: nothing is written to
 * disk and the log is never held in memory). One child process per dialect
 * and output mode, so every measurement starts from a clean heap.
 *
 *   tsx benchmarks/memory.ts [--size 1GB] [--dialect a,b] [--mode events,final]
 *                            [--limit 64MiB] [--shape log] [--no-write]
 *
 * Pass/fail: events mode must stay under `--limit` above the baseline (RSS
 * after imports and a GC, before the first byte). Final mode on a log holds
 * one response at a time, so it is held to the same limit; on a single long
 * response (`--shape single`) it holds that response's result and is reported
 * against the result's size instead.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { FinalResult } from '../lib/accumulate/types.js';
import type { UnifiedEvent } from '../lib/events.js';
import { createStream } from './package.js';
import { FIXTURE_DIALECTS, emptyStats, formatSize, generateChunks, wirefoldOptions, parseSize, replayChunks, type FixtureDialect, type FixtureShape } from './generate.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface MemoryResult {
  dialect: FixtureDialect;
  shape: FixtureShape;
  /** `source`: the byte source alone into a null sink (a control). */
  mode: 'events' | 'final' | 'source';
  bytes: number;
  seconds: number;
  baselineMiB: number;
  /** Highest sampled RSS minus baseline. */
  peakOverBaselineMiB: number;
  /** process.resourceUsage().maxRSS minus baseline (includes anything between samples). */
  maxRssOverBaselineMiB: number;
  responses: number;
  items: number;
  /** Largest final text seen (final mode), chars. */
  largestResultChars: number;
  ok: boolean;
  check: string | null;
  /** RSS over baseline (MiB) at every 1/16 of the input: flat means O(1). */
  series: number[];
  source: 'replay' | 'generator';
}

function arg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

async function child(argv: string[]): Promise<void> {
  const dialect = arg(argv, '--dialect') as FixtureDialect;
  const mode = arg(argv, '--mode') as 'events' | 'final' | 'source';
  const shape = (arg(argv, '--shape') ?? 'log') as FixtureShape;
  const size = parseSize(arg(argv, '--size') ?? '1GB');
  const source = (arg(argv, '--source') ?? 'replay') as 'replay' | 'generator';
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const options = { dialect, shape, size, seed: 1 };
  const stats = emptyStats(options);
  // replay: the 8 MiB segment is generated before the baseline is taken (it is part of it)
  const chunks = source === 'replay' && shape === 'log' ? replayChunks(options, 8 << 20, 64 * 1024, stats) : generateChunks(options, 64 * 1024, stats);
  const first = chunks.next();

  // Warm the code paths on a small log first, so JIT code is in the baseline.
  const stage = (): NodeJS.ReadWriteStream[] => (mode === 'source' ? [] : [createStream({ ...wirefoldOptions(dialect), output: mode }) as unknown as NodeJS.ReadWriteStream]);
  await (pipeline as unknown as (...s: unknown[]) => Promise<void>)(Readable.from(generateChunks({ ...options, size: 1 << 20 })), ...stage(), new Writable({ objectMode: true, write: (_x, _e, cb) => cb() }));
  gc();
  gc();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  let nextSample = 0;
  let nextSeries = 0;
  let delivered = 0;
  const series: number[] = [];
  function* sampled(): Generator<Buffer> {
    let r = first;
    for (; r.done !== true; r = chunks.next()) {
      const chunk = r.value;
      delivered += chunk.length;
      if (delivered >= nextSample) {
        nextSample = delivered + (1 << 20);
        const rss = process.memoryUsage.rss();
        if (rss > peak) peak = rss;
        if (delivered >= nextSeries) {
          nextSeries = delivered + size / 16;
          series.push(Math.round((rss - baseline) / 2 ** 20));
        }
      }
      yield chunk;
    }
  }
  let items = 0;
  let responses = 0;
  let text = 0;
  let largest = 0;
  let errors = 0;
  const t0 = performance.now();
  await (pipeline as unknown as (...s: unknown[]) => Promise<void>)(
    Readable.from(sampled()),
    ...stage(),
    new Writable({
      objectMode: true,
      write(x: UnifiedEvent | FinalResult | Buffer, _e, cb) {
        items++;
        if (mode === 'source') {
          // control: the generator alone
        } else if (mode === 'events') {
          const ev = x as UnifiedEvent;
          if (ev.type === 'done') responses++;
          else if (ev.type === 'text_delta') text += ev.text.length;
          else if (ev.type === 'error') errors++;
        } else {
          const r = x as FinalResult;
          responses++;
          text += r.text.length;
          if (r.text.length > largest) largest = r.text.length;
          errors += r.errors.length;
        }
        cb();
      },
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const end = process.memoryUsage.rss();
  if (end > peak) peak = end;
  const maxRss = process.resourceUsage().maxRSS * 1024;
  const problems: string[] = [];
  if (mode === 'source') {
    responses = stats.responses;
    text = stats.textChars;
  }
  if (responses !== stats.responses) problems.push(`responses ${responses} ≠ ${stats.responses}`);
  if (text !== stats.textChars) problems.push(`text chars ${text} ≠ ${stats.textChars}`);
  if (errors > 0) problems.push(`${errors} error events`);
  const result: MemoryResult = {
    dialect,
    shape,
    mode,
    bytes: stats.bytes,
    seconds,
    baselineMiB: baseline / 2 ** 20,
    peakOverBaselineMiB: (peak - baseline) / 2 ** 20,
    maxRssOverBaselineMiB: (maxRss - baseline) / 2 ** 20,
    responses,
    items,
    largestResultChars: largest,
    ok: problems.length === 0,
    check: problems.length === 0 ? null : problems.join('; '),
    series,
    source,
  };
  process.stdout.write(JSON.stringify(result) + '\n');
}

function runChild(args: string[]): Promise<MemoryResult> {
  return new Promise((resolvePromise, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(here, 'memory.ts'), '--child', ...args], {
      cwd: join(here, '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || line === '') reject(new Error(`memory child exited with ${code}`));
      else resolvePromise(JSON.parse(line) as MemoryResult);
    });
  });
}

async function parent(argv: string[]): Promise<void> {
  const size = parseSize(arg(argv, '--size') ?? '1GB');
  const limit = parseSize(arg(argv, '--limit') ?? '64MiB');
  const shape = (arg(argv, '--shape') ?? 'log') as FixtureShape;
  const dialects = (arg(argv, '--dialect')?.split(',') ?? [...FIXTURE_DIALECTS]) as FixtureDialect[];
  const modes = (arg(argv, '--mode') ?? 'events,final').split(',') as ('events' | 'final')[];
  const results: MemoryResult[] = [];
  let failed = false;
  const runs: { dialect: FixtureDialect; mode: MemoryResult['mode']; source: 'replay' | 'generator' }[] = [];
  for (const dialect of dialects) for (const mode of modes) runs.push({ dialect, mode, source: 'replay' });
  if (!argv.includes('--no-controls') && shape === 'log') {
    // the generator as the source (its own garbage counts), and the generator alone
    runs.push({ dialect: dialects[0]!, mode: 'events', source: 'generator' });
    runs.push({ dialect: dialects[0]!, mode: 'source', source: 'generator' });
  }
  for (const { dialect, mode, source } of runs) {
    {
      process.stderr.write(`${dialect} ${shape} ${formatSize(size)} ${mode} (${source})… `);
      const r = await runChild(['--dialect', dialect, '--mode', mode, '--size', String(size), '--shape', shape, '--source', source]);
      const bounded = source === 'replay' && (mode === 'events' || (mode === 'final' && shape === 'log'));
      const pass = r.ok && (!bounded || r.peakOverBaselineMiB * 2 ** 20 < limit);
      if (!pass) failed = true;
      results.push(r);
      process.stderr.write(
        `peak RSS +${r.peakOverBaselineMiB.toFixed(1)} MiB over baseline ${r.baselineMiB.toFixed(0)} MiB (maxRSS +${r.maxRssOverBaselineMiB.toFixed(1)}), ${(r.bytes / 2 ** 20 / r.seconds).toFixed(0)} MB/s incl. generation, ${r.responses} responses${r.check === null ? '' : `, CHECK FAILED: ${r.check}`} — ${bounded ? (pass ? 'PASS' : 'FAIL') : 'info'}\n`,
      );
    }
  }
  const lines: string[] = [];
  lines.push(
    `\`npm run bench:memory${argv.length > 0 ? ' -- ' + argv.join(' ') : ''}\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, one process per row. ` +
      `Input: a ${formatSize(size)} ${shape === 'log' ? 'log of many responses back to back' : 'single response'} made on the fly, never written to disk, in 64 KiB chunks through a Readable into \`createStream\` and a counting sink. ` +
      `Source \`replay\`: an 8 MiB log segment is generated once (before the baseline, so it is part of it) and replayed back to back as zero-copy chunk views, so the RSS growth is wirefold's own; ` +
      `source \`generator\`: the seeded generator renders every byte on the fly (its own garbage then shows in the RSS; the \`none (control)\` row is the generator alone into a null sink). ` +
      `Baseline: RSS after imports, a 1 MiB warm-up run and a GC. Pass: peak under ${formatSize(limit)} over baseline (replay rows; final mode on a log holds one response at a time, so the same bound applies). MB/s includes producing the bytes.`,
  );
  lines.push('');
  lines.push('| dialect | mode | source | bytes | responses | peak RSS over baseline | RSS over baseline at each 1/16 of the input (MiB) | MB/s | result |');
  lines.push('|---|---|---|---:|---:|---:|---|---:|---|');
  for (const r of results) {
    const bounded = r.source === 'replay' && (r.mode === 'events' || (r.mode === 'final' && r.shape === 'log'));
    const pass = r.ok && (!bounded || r.peakOverBaselineMiB * 2 ** 20 < limit);
    lines.push(
      `| ${r.dialect} | ${r.mode === 'source' ? 'none (control)' : r.mode} | ${r.source} | ${(r.bytes / 2 ** 30).toFixed(2)} GiB | ${r.responses.toLocaleString('en-US')} | ${r.peakOverBaselineMiB.toFixed(1)} MiB | ${r.series.join(' ')} | ${(r.bytes / 2 ** 20 / r.seconds).toFixed(0)} | ${r.check ?? (r.mode === 'source' ? 'control' : r.source !== 'replay' ? 'info (the generator\'s garbage included)' : bounded ? (pass ? 'pass' : '**FAIL**') : `largest result ${r.largestResultChars.toLocaleString('en-US')} chars`)} |`,
    );
  }
  const section = `<!-- memory:begin -->\n${lines.join('\n')}\n<!-- memory:end -->`;
  process.stdout.write('\n' + lines.join('\n') + '\n');
  const resultsMd = join(here, 'RESULTS.md');
  if (!argv.includes('--no-write')) {
    const existing = existsSync(resultsMd) ? readFileSync(resultsMd, 'utf8') : '# wirefold benchmark results\n\n## Memory\n\n<!-- memory:begin -->\n<!-- memory:end -->\n';
    const re = /<!-- memory:begin -->[\s\S]*?<!-- memory:end -->/;
    writeFileSync(resultsMd, re.test(existing) ? existing.replace(re, () => section) : existing + '\n## Memory\n\n' + section + '\n');
    process.stderr.write(`updated ${resultsMd}\n`);
  }
  process.stdout.write(failed ? 'FAIL\n' : 'PASS\n');
  process.exitCode = failed ? 1 : 0;
}

const argv = process.argv.slice(2);
(argv.includes('--child') ? child(argv) : parent(argv)).catch((err: unknown) => {
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
