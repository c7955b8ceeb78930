/**
 * The long fuzz run: `npm run fuzz -- --cases 1000000 --seed N`.
 *
 * Cases run in a worker thread (test/helpers/fuzz.ts has the cases and the
 * oracle) while this thread prints progress and cases/s and watches it: a
 * case that never returns (a real hang, which no in-thread timer can catch)
 * is stopped and reported like any other failure. The run stops at the first
 * failure that is not a known bug (`--stop-on-known` stops at those too) and
 * leaves a reproducer: the seed and case number, the input it came from, and
 * the mutated bytes and the case's options saved to a temp directory.
 *
 * Options: --cases N (default 200000), --seed N (default: random, printed),
 * --from I (first case), --max-case-ms N (default 10000), --hang-ms N (default
 * 30000), --max-heap-mib N (default 1024), --stop-on-known.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { describeCase, KNOWN_BUGS, makeCase, runBatch, seedInputs, type BatchStats, type FuzzCase } from '../helpers/fuzz.js';

interface RunConfig {
  seed: number;
  from: number;
  cases: number;
  maxCaseMs: number;
  hangMs: number;
  maxHeapBytes: number;
  stopOnKnown: boolean;
}

/** What the worker tells the main thread. */
type Message =
  | { type: 'ready'; inputs: number }
  | { type: 'progress'; done: number; stats: Summary }
  | { type: 'finished'; stats: Summary; failure: { index: number; problem: string } | null };

/** BatchStats without the cases (structured-clone friendly, small). */
interface Summary {
  cases: number;
  withErrors: number;
  bytes: number;
  maxCaseMs: number;
  slowestCase: number;
  maxHeapBytes: number;
  ms: number;
  known: { id: string; count: number; first: number }[];
}

function summarize(s: BatchStats): Summary {
  return {
    cases: s.cases,
    withErrors: s.withErrors,
    bytes: s.bytes,
    maxCaseMs: s.maxCaseMs,
    slowestCase: s.slowestCase,
    maxHeapBytes: s.maxHeapBytes,
    ms: s.ms,
    known: [...s.known].map(([id, k]) => ({ id, count: k.count, first: k.first.case.index })),
  };
}

// ---------------------------------------------------------------------------
// Worker: runs the cases, publishes the current case index for the watchdog
// ---------------------------------------------------------------------------

function work(): void {
  const { config, current } = workerData as { config: RunConfig; current: Int32Array };
  const port = parentPort!;
  const inputs = seedInputs();
  port.postMessage({ type: 'ready', inputs: inputs.length } satisfies Message);
  const stats = runBatch(inputs, {
    seed: config.seed,
    from: config.from,
    cases: config.cases,
    maxCaseMs: config.maxCaseMs,
    maxHeapBytes: config.maxHeapBytes,
    maxFailures: 1,
    stopOnKnown: config.stopOnKnown,
    progressEvery: 2000,
    onCase: (index) => Atomics.store(current, 0, index),
    onProgress: (done, s) => port.postMessage({ type: 'progress', done, stats: summarize(s) } satisfies Message),
  });
  const f = stats.failures[0];
  port.postMessage({
    type: 'finished',
    stats: summarize(stats),
    failure: f === undefined ? null : { index: f.case.index, problem: f.problem },
  } satisfies Message);
}

// ---------------------------------------------------------------------------
// Main: arguments, progress, watchdog, reproducer
// ---------------------------------------------------------------------------

function parseArgs(argv: string[]): RunConfig {
  const config: RunConfig = {
    seed: Math.floor(Math.random() * 2 ** 31),
    from: 0,
    cases: 200_000,
    maxCaseMs: 10_000,
    hangMs: 30_000,
    maxHeapBytes: 1024 * 2 ** 20,
    stopOnKnown: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${arg} needs a non-negative integer`);
      return v;
    };
    switch (arg) {
      case '--cases':
        config.cases = value();
        break;
      case '--seed':
        config.seed = value();
        break;
      case '--from':
        config.from = value();
        break;
      case '--max-case-ms':
        config.maxCaseMs = value();
        break;
      case '--hang-ms':
        config.hangMs = value();
        break;
      case '--max-heap-mib':
        config.maxHeapBytes = value() * 2 ** 20;
        break;
      case '--stop-on-known':
        config.stopOnKnown = true;
        break;
      default:
        throw new Error(`unknown option ${arg} (see the header of test/fuzz/long-run.ts)`);
    }
  }
  return config;
}

function line(s: Summary, started: number): string {
  const secs = (performance.now() - started) / 1000;
  const known = s.known.length === 0 ? '' : `, known bugs: ${s.known.map((k) => `${k.id} ×${k.count}`).join(', ')}`;
  return (
    `${s.cases} cases, ${Math.round(s.cases / secs)} cases/s, ${(s.bytes / 2 ** 20).toFixed(0)} MiB, ` +
    `${s.withErrors} with error events, slowest ${s.maxCaseMs.toFixed(0)} ms (#${s.slowestCase}), ` +
    `heap max ${(s.maxHeapBytes / 2 ** 20).toFixed(0)} MiB${known}`
  );
}

/** Saves the failing case's bytes and description; returns the directory. */
function saveReproducer(c: FuzzCase, problem: string): string {
  const dir = mkdtempSync(join(tmpdir(), `wirefold-fuzz-${c.seed}-${c.index}-`));
  writeFileSync(join(dir, 'input.bin'), c.bytes);
  const description = {
    seed: c.seed,
    index: c.index,
    source: c.source,
    mutations: c.mutations,
    options: c.options,
    finalLimits: c.finalLimits,
    chunkSizes: c.chunkSizes,
    problem,
    replay: `npm run fuzz -- --seed ${c.seed} --from ${c.index} --cases 1`,
  };
  writeFileSync(join(dir, 'case.json'), JSON.stringify(description, null, 2) + '\n');
  return dir;
}

function fail(config: RunConfig, index: number, problem: string): void {
  const c = makeCase(seedInputs(), config.seed, index);
  const dir = saveReproducer(c, problem);
  console.error(`\nFAILED ${problem}\n${describeCase(c)}\nreproducer: ${dir}/input.bin (bytes), ${dir}/case.json (options, chunking)`);
  process.exitCode = 1;
}

function main(): void {
  let config: RunConfig;
  try {
    config = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 2;
    return;
  }
  console.log(`fuzzing cases ${config.from}..${config.from + config.cases - 1} with seed ${config.seed}`);
  const current = new Int32Array(new SharedArrayBuffer(4));
  Atomics.store(current, 0, config.from);
  // The worker runs this same file; tsx's loader is registered in it first (hooks are per thread).
  const entry = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(entry, { eval: true, workerData: { config, current } });
  const started = performance.now();
  let lastIndex = -1;
  let lastChange = Date.now();
  let finished = false;
  let ready = false;
  let printed = -1;

  const watchdog = setInterval(() => {
    const index = Atomics.load(current, 0);
    if (index !== lastIndex) {
      lastIndex = index;
      lastChange = Date.now();
      return;
    }
    if (!ready || Date.now() - lastChange < config.hangMs) return;
    // The worker is stuck inside one case: stop it and report that case.
    finished = true;
    clearInterval(watchdog);
    void worker.terminate();
    fail(config, index, `case did not finish within ${config.hangMs} ms (hang)`);
  }, 1000);

  worker.on('message', (m: Message) => {
    if (m.type === 'ready') {
      ready = true;
      lastChange = Date.now();
      console.log(`${m.inputs} seed inputs (fixtures and corpus)`);
      return;
    }
    if (m.type === 'progress') {
      printed = m.stats.cases;
      console.log(line(m.stats, started));
      return;
    }
    finished = true;
    clearInterval(watchdog);
    if (m.stats.cases !== printed) console.log(line(m.stats, started));
    for (const k of m.stats.known) {
      const bug = KNOWN_BUGS.find((b) => b.id === k.id);
      console.log(`known bug ${k.id} (${bug?.todo ?? '?'}): ${k.count} case(s), first: --seed ${config.seed} --from ${k.first} --cases 1`);
    }
    if (m.failure !== null) fail(config, m.failure.index, m.failure.problem);
    else console.log(`done: ${m.stats.cases} cases, no failure outside the known bugs`);
  });
  worker.on('error', (err) => {
    if (finished) return;
    finished = true;
    clearInterval(watchdog);
    if (!ready) {
      console.error(`the fuzz worker failed to start: ${err.stack ?? String(err)}`);
      process.exitCode = 2;
      return;
    }
    // An exception escaping the worker is a failure of the case it was running.
    fail(config, Atomics.load(current, 0), `the worker died: ${err.stack ?? String(err)}`);
  });
  worker.on('exit', (code) => {
    clearInterval(watchdog);
    if (finished) return;
    finished = true;
    if (ready) fail(config, Atomics.load(current, 0), `the worker exited with code ${code}`);
    else process.exitCode = 2;
  });
}

if (isMainThread) main();
else work();
