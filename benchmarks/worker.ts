/**
 * One benchmark process for one fixture: every applicable method, in
 * alternation (round-robin), at each chunk size, median of N timed runs after
 * a warm-up. Run as `node --expose-gc --import tsx benchmarks/worker.ts
 * --fixture F [--slow-fixture G] --out results.json [--runs 5] [--chunks 65536,1536]
 * [--methods a,b] [--no-slow]`.
 *
 * Each run gets a fresh Response from a mocked fetch whose body enqueues the
 * fixture in fixed-size chunks (plain Uint8Array views, as undici hands them
 * out). Before each run the heap is collected; during the run RSS is sampled
 * every 64 KiB of input, and the peak over the pre-run RSS is recorded.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance, PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { Rng, fixtureExtension, type FixtureStats } from './generate.js';
import { CheckError, methodsFor, type Method, type MockFetch } from './methods.js';

export interface RunRecord {
  method: string;
  label: string;
  group: string;
  chunkSize: number;
  /** Bytes of the fixture this method read (smaller for slow peers on the slow fixture). */
  bytes: number;
  frames: number;
  fixture: string;
  /** Timed runs, ms. */
  runs: number[];
  medianMs: number;
  /** MiB/s on the median run. */
  mbps: number;
  /** Median process CPU time (user + system, all threads: GC helpers included) per run, ms: less sensitive to other processes than wall time. */
  medianCpuMs: number;
  /** Wire events (SSE events / array elements) per second on the median run. */
  framesPerSec: number;
  /** Items the method produced per run. */
  items: number;
  /** Bytes the method wrote per run (transcoding: the target's wire); absent for a method that writes none. */
  bytesOut?: number;
  /** Median over runs of the peak RSS above the RSS at the run's start, MiB. */
  peakRssDeltaMiB: number;
  /** Per timed run: GC pause time that started within the run, ms, and mark-compacts among those pauses. */
  gcMs: number[];
  markCompacts: number[];
  error: string | null;
}

export interface WorkerOutput {
  fixture: string;
  stats: FixtureStats;
  slowFixture: string | null;
  slowStats: FixtureStats | null;
  node: string;
  records: RunRecord[];
  /** process.resourceUsage().maxRSS at the end, MiB. */
  maxRssMiB: number;
  baselineRssMiB: number;
  wallSeconds: number;
  /** 1-minute load average at the worker's start and end (other processes on the machine skew timings). */
  loadAvg: [number, number];
}

interface Fixture {
  path: string;
  data: Buffer;
  stats: FixtureStats;
}

function loadFixture(path: string): Fixture {
  const stats = JSON.parse(readFileSync(path + '.stats.json', 'utf8')) as FixtureStats;
  const data = readFileSync(path);
  if (data.length !== stats.bytes) throw new Error(`${path}: ${data.length} bytes, stats say ${stats.bytes}`);
  return { path, data, stats };
}

class RssSampler {
  private peak = 0;
  private next = 0;
  reset(): number {
    const rss = process.memoryUsage.rss();
    this.peak = rss;
    this.next = 0;
    return rss;
  }
  tick(delivered: number): void {
    if (delivered < this.next) return;
    this.next = delivered + 64 * 1024;
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
  }
  finish(): number {
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
    return this.peak;
  }
}

function mockFetch(fx: Fixture, chunkSize: number, sampler: RssSampler): MockFetch {
  const contentType = fixtureExtension(fx.stats.dialect) === 'json' ? 'application/json; charset=UTF-8' : 'text/event-stream; charset=utf-8';
  const { data } = fx;
  return async () => {
    let pos = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pos >= data.length) {
          controller.close();
          return;
        }
        const end = Math.min(pos + chunkSize, data.length);
        controller.enqueue(new Uint8Array(data.buffer, data.byteOffset + pos, end - pos));
        pos = end;
        sampler.tick(pos);
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': contentType } });
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A copy of `xs` in a random order (Fisher-Yates). */
function shuffled<T>(xs: readonly T[], random: Rng): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function arg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

/**
 * GC pauses, kept by start time so that each can be charged to the run it
 * fell in: methods alternate in one heap, so a method can pay for another's
 * garbage, and these show when a median moved for that reason.
 */
class GcLog {
  private entries: { start: number; ms: number; major: boolean }[] = [];
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      this.entries.push({ start: e.startTime, ms: e.duration, major: kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR });
    }
  });
  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }
  /** Waits for the observer, which reports pauses late (not within the same turn). */
  settle(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, 50));
  }
  /** GC ms and mark-compacts of the pauses that started in each [from, to) (after settle). */
  charge(intervals: [number, number][]): { ms: number; majors: number }[] {
    return intervals.map(([from, to]) => {
      let ms = 0;
      let majors = 0;
      for (const e of this.entries) {
        if (e.start < from || e.start >= to) continue;
        ms += e.ms;
        if (e.major) majors++;
      }
      return { ms: Math.round(ms * 100) / 100, majors };
    });
  }
  clear(): void {
    this.entries = [];
  }
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function main(argv: string[]): Promise<void> {
  const t0 = performance.now();
  const load0 = loadavg()[0]!;
  const fixturePath = arg(argv, '--fixture');
  const out = arg(argv, '--out');
  if (fixturePath === undefined || out === undefined) throw new Error('usage: worker.ts --fixture F --out results.json [--slow-fixture G] [--runs 5] [--warmup 1] [--warmup-max 6] [--warmup-ms 500] [--min-timed-ms 2000] [--max-runs 25] [--chunks 65536,1536] [--methods a,b] [--no-slow] [--forced-gc]');
  const runs = Number(arg(argv, '--runs') ?? '5');
  const warmup = Number(arg(argv, '--warmup') ?? '1');
  const warmupMax = Math.max(warmup, Number(arg(argv, '--warmup-max') ?? '6'));
  const warmupMs = Number(arg(argv, '--warmup-ms') ?? '500');
  const minTimedMs = Number(arg(argv, '--min-timed-ms') ?? '2000');
  const maxRuns = Math.max(runs, Number(arg(argv, '--max-runs') ?? String(runs * 5)));
  const chunkSizes = (arg(argv, '--chunks') ?? '65536,1536').split(',').map(Number);
  const only = arg(argv, '--methods')?.split(',');
  /** A forced GC before every run (see run.ts: it makes V8 drop optimized code). */
  const forcedGc = argv.includes('--forced-gc');
  const fx = loadFixture(fixturePath);
  const slowPath = arg(argv, '--slow-fixture');
  const slowFx = slowPath === undefined ? null : loadFixture(slowPath);

  let methods: Method[] = methodsFor(fx.stats.dialect, fx.stats.shape);
  if (only !== undefined) methods = methods.filter((m) => only.includes(m.id));
  // `--no-slow`: leave out the peers marked slow (Vercel AI SDK, @google/genai)
  if (argv.includes('--no-slow')) methods = methods.filter((m) => m.slow !== true);

  // Keep peers' console noise (deprecation notes, warnings) out of the report.
  const log = (s: string): void => void process.stderr.write(s + '\n');
  console.warn = () => {};
  console.log = () => {};
  console.info = () => {};

  gc();
  const baselineRss = process.memoryUsage.rss();
  const records: RunRecord[] = [];
  const sampler = new RssSampler();
  const gcLog = new GcLog();

  for (const chunkSize of chunkSizes) {
    const state = methods.map((m) => {
      const f = m.slow === true && slowFx !== null ? slowFx : fx;
      return {
        m,
        fx: f,
        fetch: mockFetch(f, chunkSize, sampler),
        times: [] as number[],
        cpu: [] as number[],
        intervals: [] as [number, number][],
        gcMs: [] as number[],
        majors: [] as number[],
        peaks: [] as number[],
        items: 0,
        bytesOut: undefined as number | undefined,
        error: null as string | null,
      };
    });
    // Warm-up rounds (round-robin, untimed): each method runs at least `warmup` times and
    // keeps warming, up to `warmupMax` runs, until it has spent `warmupMs` (a fast method's
    // 8 MiB run takes ~60 ms, too little for V8 to tier everything up in one run).
    const warmRuns = new Map<(typeof state)[number], number>();
    const warmTime = new Map<(typeof state)[number], number>();
    const needsWarmup = (s: (typeof state)[number]): boolean => {
      const n = warmRuns.get(s) ?? 0;
      return s.error === null && (n < warmup || (n < warmupMax && (warmTime.get(s) ?? 0) < warmupMs));
    };
    for (let round = 0; ; round++) {
      const pending = state.filter(needsWarmup);
      if (pending.length === 0) break;
      for (const s of pending) {
        if (forcedGc) gc();
        const start = performance.now();
        try {
          await s.m.run({ dialect: s.fx.stats.dialect, stats: s.fx.stats, fetch: s.fetch });
        } catch (err) {
          s.error = err instanceof CheckError ? `check failed: ${err.message}` : `failed: ${(err as Error)?.stack?.split('\n').slice(0, 3).join(' | ') ?? String(err)}`;
          log(`  ${s.m.id} @${chunkSize}: ${s.error}`);
        }
        warmRuns.set(s, (warmRuns.get(s) ?? 0) + 1);
        warmTime.set(s, (warmTime.get(s) ?? 0) + performance.now() - start);
      }
    }
    // `runs` timed rounds of every method, then more rounds of the fast ones until each has
    // `minTimedMs` of timed runs or `maxRuns` runs: the median of five 60 ms runs moved by
    // ±30 % on this 2-core machine, that of a few seconds' worth much less (five or six runs
    // of 150-200 ms, what 1 s gave the Interactions methods, still ±15 %).
    // Each round runs the methods in a new (seeded) order. In a fixed order the heap's
    // rhythm locks onto the rotation: a mark-compact that one run's allocations start is
    // finished, incremental marking and pause, ~30 ms into the next run, and with one every
    // two runs it fell on the same method round after round (Interactions at 64 KiB, fused
    // then separate stages: 2-3 of 25 runs against 13-16 of 25; either alone: 9-12 of 25).
    // The floor, wirefold's methods and the transcoding ones, whose ratios are the targets, run the same rounds:
    // while one of them needs more, all of them run, so that none has its median taken over
    // a stretch of the host's drift (runs late in a worker were up to 2x faster) the others missed.
    const timed = (s: (typeof state)[number]): number => s.times.reduce((a, b) => a + b, 0);
    const compared = (s: (typeof state)[number]): boolean => s.m.group === 'floor' || s.m.group === 'wirefold' || s.m.group === 'transcode';
    const random = new Rng(chunkSize); // (seeded: a rerun makes the same orders)
    for (let round = 0; round < maxRuns; round++) {
      const wants = (s: (typeof state)[number]): boolean => s.error === null && (round < runs || timed(s) < minTimedMs);
      const comparedWant = state.some((s) => compared(s) && wants(s));
      for (const s of shuffled(state, random)) {
        if (s.error !== null) continue;
        if (!(wants(s) || (compared(s) && comparedWant))) continue;
        if (forcedGc) gc();
        const before = sampler.reset();
        const cpu0 = process.cpuUsage();
        const start = performance.now();
        try {
          const r = await s.m.run({ dialect: s.fx.stats.dialect, stats: s.fx.stats, fetch: s.fetch });
          const ms = performance.now() - start;
          const cpu = process.cpuUsage(cpu0);
          const peak = sampler.finish();
          s.items = r.items;
          s.bytesOut = r.bytesOut;
          s.times.push(ms);
          s.cpu.push((cpu.user + cpu.system) / 1000);
          s.peaks.push((peak - before) / 2 ** 20);
          s.intervals.push([start, start + ms]);
        } catch (err) {
          s.error = err instanceof CheckError ? `check failed: ${err.message}` : `failed: ${(err as Error)?.stack?.split('\n').slice(0, 3).join(' | ') ?? String(err)}`;
          log(`  ${s.m.id} @${chunkSize}: ${s.error}`);
        }
      }
    }
    await gcLog.settle();
    for (const s of state) {
      for (const g of gcLog.charge(s.intervals)) {
        s.gcMs.push(g.ms);
        s.majors.push(g.majors);
      }
    }
    gcLog.clear();
    for (const s of state) {
      const med = s.times.length > 0 ? median(s.times) : NaN;
      const rec: RunRecord = {
        method: s.m.id,
        label: s.m.label,
        group: s.m.group,
        chunkSize,
        bytes: s.fx.stats.bytes,
        frames: s.fx.stats.frames,
        fixture: s.fx.path,
        runs: s.times.map((x) => Math.round(x * 100) / 100),
        medianMs: med,
        mbps: s.fx.stats.bytes / 2 ** 20 / (med / 1000),
        medianCpuMs: s.cpu.length > 0 ? median(s.cpu) : NaN,
        framesPerSec: s.fx.stats.frames / (med / 1000),
        items: s.items,
        ...(s.bytesOut === undefined ? {} : { bytesOut: s.bytesOut }),
        peakRssDeltaMiB: s.peaks.length > 0 ? median(s.peaks) : NaN,
        gcMs: s.gcMs,
        markCompacts: s.majors,
        error: s.error,
      };
      records.push(rec);
      log(
        `  ${chunkSize.toString().padStart(6)} B  ${s.m.id.padEnd(24)} ${rec.error === null ? `${rec.mbps.toFixed(1).padStart(7)} MB/s  ${(rec.framesPerSec / 1000).toFixed(0).padStart(6)}k ev/s  +${rec.peakRssDeltaMiB.toFixed(0)} MiB  GC ${median(s.gcMs).toFixed(1)} ms/run, ${s.majors.reduce((a, b) => a + b, 0)} mark-compacts in ${s.majors.length} runs` : rec.error}`,
      );
    }
  }

  const output: WorkerOutput = {
    fixture: fx.path,
    stats: fx.stats,
    slowFixture: slowFx?.path ?? null,
    slowStats: slowFx?.stats ?? null,
    node: process.version,
    records,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    baselineRssMiB: baselineRss / 2 ** 20,
    wallSeconds: (performance.now() - t0) / 1000,
    loadAvg: [load0, loadavg()[0]!],
  };
  writeFileSync(out, JSON.stringify(output, null, 2));
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`worker failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
