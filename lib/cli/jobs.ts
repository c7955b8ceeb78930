/**
 * --jobs N: many inputs (or many records) on a pool of N worker threads
 * (piscina), the output written by the main thread in input order, the same
 * bytes as --jobs 1.
 *
 * A task is one input file (one doctor input), or one batch of record lines
 * (the main thread reads and splits the records input, stdin included, and
 * sends the lines in batches, so that a message carries enough work to be
 * worth it), or one byte range of a large records file (range.ts: the
 * worker reads it, and the main thread only writes). Tasks are started in input order, at most 2 × N ahead of the
 * writer: a result done early waits for those before it, and no more than
 * that many (each one input's whole output, or one batch's) are ever held.
 * Standard input among files is read by the main thread when its turn
 * comes, and written as it is read.
 *
 * Everything the single-threaded command does per input, the worker does
 * (run-input.ts, doctor.ts: the same functions), into a BufferSink the main
 * thread replays, diagnostics in their places. --strict stops at the first
 * input (in input order) that stops, and the tasks after it are dropped;
 * stdout closed stops the run; either way the pool is destroyed (its
 * workers terminated) before the command returns. A worker that fails on a
 * task (it crashed, ran out of memory, or met a bug) costs that input only:
 * it is named on stderr in its place, `internal error`, and the exit status
 * is 70; a records batch's lines then get one error line each
 * (`internal_error`), so that the line count out still equals the count in.
 */
import type { Piscina } from 'piscina';
import { DEFAULT_MAX_RECORD_BYTES } from '../records/options.js';
import { packLines, runBatch, runRange } from './batch.js';
import { countRangeLines, planRanges, rangeSize, readHead, type ByteRange } from './range.js';
import { stat } from 'node:fs/promises';
import { createLineSplitter, Oversized, type Line } from '../records/lines.js';
import type { RecordOutput } from '../records/types.js';
import { EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, UsageError, worse, type CliOptions } from './args.js';
import { DoctorWriter, examineFile, type Examined } from './doctor.js';
import { InputError, inputName, openInput, reason, type Input } from './input.js';
import type { CliIO } from './io.js';
import type { Output } from './output.js';
import { createCountProgress, type Progress } from './progress.js';
import { messageOf, recordFormatter, runInMainThread, type Outcome } from './run-input.js';
import { replay } from './sink.js';
import type { Task, TaskResult, WorkerHeap } from './worker.js';
import { runLogInParts } from './sse-split.js';

/** A records batch is sent once it holds this many records, or this many bytes, or the input pauses. */
export const BATCH_RECORDS = 16;
export const BATCH_BYTES = 256 * 1024;
/** How long a part-filled batch waits for more input before it is sent (a queue worker waiting for its answer). */
export const PAUSE_MS = 2;
/** Tasks started ahead of the writer, per worker. */
export const AHEAD_PER_WORKER = 2;
/** --jobs left at its default: how long inputs are read in the main thread before the workers are started (MainThreadShare). */
export const AUTO_POOL_MS = 200;

/** The environment variable that caps each worker's JavaScript heap, in MiB (resourceLimits.maxOldGenerationSizeMb). */
export const HEAP_ENV = 'WIREFOLD_WORKER_HEAP_MB';

/** The cap HEAP_ENV sets, or null; a UsageError when it is not a whole number of MiB. */
export function workerHeapLimit(env: NodeJS.ProcessEnv = process.env): number | null {
  const value = env[HEAP_ENV];
  if (value === undefined || value === '') return null;
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < 1) throw new UsageError(`${HEAP_ENV} takes a whole number of MiB, not '${value}'`);
  return Number(value);
}

/** What the last pooled run saw (for benchmarks/jobs.ts): tasks, and each worker's largest heap at the end of a task. */
export interface JobsStats {
  threads: number;
  tasks: number;
  heaps: WorkerHeap[];
}

let stats: JobsStats = { threads: 0, tasks: 0, heaps: [] };

export function lastJobsStats(): JobsStats {
  return stats;
}

function noteHeap(heap: WorkerHeap): void {
  stats.tasks++;
  const seen = stats.heaps.find((h) => h.threadId === heap.threadId);
  if (seen === undefined) stats.heaps.push({ ...heap });
  else {
    seen.heapTotal = Math.max(seen.heapTotal, heap.heapTotal);
    seen.heapUsed = Math.max(seen.heapUsed, heap.heapUsed);
    seen.peakMalloced = Math.max(seen.peakMalloced, heap.peakMalloced);
    if (heap.cpuMs !== null) seen.cpuMs = Math.max(seen.cpuMs ?? 0, heap.cpuMs);
  }
}

/** The worker module beside this one: dist/cli/worker.js, or worker.ts when the sources run through tsx (the tests). */
function workerFile(): string {
  const here = import.meta.url;
  return new URL(here.endsWith('.ts') ? './worker.ts' : './worker.js', here).href;
}

/** The pool, started with the first task (piscina is loaded only then). */
class Pool {
  private pool: Promise<Piscina<Task, TaskResult>> | null = null;
  private started: Piscina<Task, TaskResult> | null = null;
  private destroying = false;
  /** Errors the pool reported outside any task (a task's own failure rejects its promise). */
  private readonly stray: unknown[] = [];

  constructor(
    private readonly threads: number,
    private readonly opts: CliOptions,
    private readonly heapMb: number | null,
  ) {}

  async run(task: Task, transfer?: ArrayBuffer[]): Promise<TaskResult> {
    this.pool ??= import('piscina').then(({ Piscina }) => {
      const pool = new Piscina<Task, TaskResult>({
        filename: workerFile(),
        minThreads: this.threads,
        maxThreads: this.threads,
        workerData: this.opts,
        recordTiming: false,
        ...(this.heapMb === null ? {} : { resourceLimits: { maxOldGenerationSizeMb: this.heapMb } }),
      });
      // Without a listener an 'error' event would throw. While destroy() terminates the workers, the answer of a
      // task already sent back arrives for a task the pool has dropped (piscina: "Unexpected message from Worker"): no error.
      pool.on('error', (err: unknown) => {
        if (!this.destroying) this.stray.push(err);
      });
      this.started = pool;
      return pool;
    });
    const pool = await this.pool;
    return pool.run(task, transfer === undefined ? undefined : { transferList: transfer });
  }

  /**
   * Terminates the workers (a task under way is dropped), then tells an error
   * the pool reported outside any task, if there was one (exit status 70).
   */
  async destroy(output: Output): Promise<number> {
    if (this.pool === null) return EXIT_OK;
    await this.pool.catch(() => {});
    if (this.started === null) return EXIT_OK;
    this.destroying = true;
    await this.started.destroy();
    for (const err of this.stray) await output.diagnostic(`internal error: ${messageOf(err)}`);
    return this.stray.length > 0 ? EXIT_INTERNAL : EXIT_OK;
  }
}

/**
 * The main thread's share of an --jobs run left at its default: inputs (or
 * record batches) are read in the main thread, as with --jobs 1, until they
 * have taken AUTO_POOL_MS; only the rest go to the workers. Starting two
 * workers takes 0.2-0.4 s on a 2-core machine (each loads the library), more
 * than a few small captures take to read.
 */
class MainThreadShare {
  private spent = 0;

  constructor(private readonly limit: number) {}

  get open(): boolean {
    return this.spent < this.limit;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      this.spent += performance.now() - t0;
    }
  }
}

type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Starts each of `items` in order, at most `ahead` of the writer, and hands
 * each settled result to `write` in input order as soon as it and all before
 * it are settled. `write` returning false stops the run: nothing more is
 * started or written. Reading `items` pauses while `ahead` are waiting (for
 * records, that is what keeps the input from being read further).
 */
export async function inOrder<T, R>(
  items: Iterable<T> | AsyncIterable<T>,
  start: (item: T) => Promise<R>,
  ahead: number,
  write: (item: T, result: Settled<R>) => Promise<boolean>,
): Promise<void> {
  const queue: { item: T; result: Promise<Settled<R>> }[] = [];
  let producing = true;
  let stopped = false;
  let failure: { error: unknown } | null = null;
  let wakeWriter: (() => void) | null = null;
  let wakeProducer: (() => void) | null = null;
  const wake = (which: 'writer' | 'producer'): void => {
    const w = which === 'writer' ? wakeWriter : wakeProducer;
    if (which === 'writer') wakeWriter = null;
    else wakeProducer = null;
    w?.();
  };
  const produce = async (): Promise<void> => {
    try {
      for await (const item of items) {
        while (queue.length >= ahead && !stopped) await new Promise<void>((resolve) => (wakeProducer = resolve));
        if (stopped) break;
        const result = start(item).then(
          (value): Settled<R> => ({ ok: true, value }),
          (error: unknown): Settled<R> => ({ ok: false, error }),
        );
        queue.push({ item, result });
        wake('writer');
      }
    } catch (error) {
      failure = { error };
    } finally {
      producing = false;
      wake('writer');
    }
  };
  const producer = produce();
  try {
    for (;;) {
      if (queue.length === 0) {
        if (!producing) break;
        await new Promise<void>((resolve) => (wakeWriter = resolve));
        continue;
      }
      const head = queue[0]!;
      const settled = await head.result;
      queue.shift();
      wake('producer');
      if (!(await write(head.item, settled))) {
        stopped = true;
        break;
      }
    }
  } finally {
    stopped = true;
    wake('producer');
  }
  // a producer still waiting for input (standard input) is left to it: nothing it reads is started
  if (!producing) await producer;
  if (failure !== null) throw (failure as { error: unknown }).error;
}

/** The count progress line of a pooled run: as the progress bar, only on a terminal unless forced, never with --quiet. */
function countProgress(opts: CliOptions, io: CliIO, total: number): Progress | null {
  if (opts.quiet || opts.progress === false) return null;
  if (opts.progress !== true && io.stderrIsTTY !== true) return null;
  return createCountProgress(io.stderr, total);
}

/** How many inputs of `files` go to workers (standard input is read in the main thread). */
export function pooledInputs(files: readonly string[]): number {
  return files.filter((f) => f !== '-').length;
}

/** The stream modes with --jobs > 1 and two or more files: one task per file. */
export async function runFilesInPool(opts: CliOptions, io: CliIO, output: Output, heapMb: number | null): Promise<number> {
  const items = opts.files.map((file, index) => ({ file, index }));
  const progress = countProgress(opts, io, items.length);
  const clear = (): void => progress?.clear();
  let code = EXIT_OK;
  let next = 0;
  const mainThread = async (file: string, index: number): Promise<boolean> => {
    clear();
    const outcome = await runInMainThread(file, index, opts, io, output);
    code = worse(code, outcome.code);
    progress?.add(1);
    return !outcome.stop;
  };
  stats = { threads: 0, tasks: 0, heaps: [] };
  if (opts.jobsAuto) {
    const share = new MainThreadShare(AUTO_POOL_MS);
    while (next < items.length && share.open) {
      const { file, index } = items[next++]!;
      if (!(await share.run(() => mainThread(file, index)))) return done(code);
    }
  }
  const rest = items.slice(next);
  const threads = Math.min(opts.jobs, pooledInputs(rest.map((i) => i.file)));
  if (threads < 2) {
    for (const { file, index } of rest) if (!(await mainThread(file, index))) break;
    return done(code);
  }
  const pool = new Pool(threads, opts, heapMb);
  stats.threads = threads;
  try {
    await inOrder(
      rest,
      ({ file, index }) => (file === '-' ? Promise.resolve(null) : pool.run({ kind: 'file', file, index })),
      AHEAD_PER_WORKER * threads,
      async ({ file, index }, settled) => {
        if (settled.ok && settled.value === null) return mainThread(file, index); // standard input: read in its turn
        let outcome: Outcome;
        if (!settled.ok) {
          clear();
          await output.diagnostic(`${inputName(file)}: internal error: ${messageOf(settled.error)}`);
          outcome = { code: EXIT_INTERNAL, stop: false };
        } else {
          const result = settled.value as Extract<TaskResult, { kind: 'file' }>;
          noteHeap(result.heap);
          // stdout gone (its reader closed it): stop quietly, as cat does on SIGPIPE
          outcome = (await replay(result.recorded, output, clear)) ? result.outcome : { code: EXIT_OK, stop: true };
        }
        code = worse(code, outcome.code);
        progress?.add(1);
        return !outcome.stop;
      },
    );
  } finally {
    code = worse(code, await pool.destroy(output));
  }
  return done(code);

  function done(code: number): number {
    progress?.done();
    return code;
  }
}

/** One large SSE log with --jobs > 1, cut into `ranges` at response ends (sse-cut.ts, sse-split.ts). */
export async function runLogInPool(opts: CliOptions, io: CliIO, output: Output, heapMb: number | null, ranges: readonly ByteRange[]): Promise<number> {
  const file = opts.files[0]!;
  stats = { threads: 0, tasks: 0, heaps: [] };
  const threads = Math.min(opts.jobs, ranges.length);
  const pool = new Pool(threads, opts, heapMb);
  stats.threads = threads;
  let code = EXIT_OK;
  try {
    code = await runLogInParts(file, ranges, opts, io, output, { run: (task) => pool.run(task), noteHeap, inOrder, ahead: AHEAD_PER_WORKER * threads });
  } finally {
    code = worse(code, await pool.destroy(output));
  }
  return code;
}

/** doctor with --jobs > 1 and two or more inputs: one task per input, the reports written in input order. */
export async function doctorInPool(opts: CliOptions, io: CliIO, output: Output, heapMb: number | null): Promise<number> {
  const writer = new DoctorWriter(opts, io, output);
  const mainThread = async (file: string): Promise<boolean> => writer.add(await examineOrFail(file, opts, io));
  let next = 0;
  stats = { threads: 0, tasks: 0, heaps: [] };
  if (opts.jobsAuto) {
    const share = new MainThreadShare(AUTO_POOL_MS);
    while (next < opts.files.length && share.open) {
      const file = opts.files[next++]!;
      if (!(await share.run(() => mainThread(file)))) return writer.finish();
    }
  }
  const rest = opts.files.slice(next);
  const threads = Math.min(opts.jobs, pooledInputs(rest));
  if (threads < 2) {
    for (const file of rest) if (!(await mainThread(file))) break;
    return writer.finish();
  }
  const pool = new Pool(threads, opts, heapMb);
  stats.threads = threads;
  let pooled = EXIT_OK;
  try {
    await inOrder(
      rest,
      (file) => (file === '-' ? Promise.resolve(null) : pool.run({ kind: 'doctor', file })),
      AHEAD_PER_WORKER * threads,
      async (file, settled) => {
        if (settled.ok && settled.value === null) return mainThread(file);
        if (!settled.ok) return writer.add({ failed: `${inputName(file)}: internal error: ${messageOf(settled.error)}` });
        const result = settled.value as Extract<TaskResult, { kind: 'doctor' }>;
        noteHeap(result.heap);
        return writer.add(result.examined);
      },
    );
  } finally {
    pooled = await pool.destroy(output);
  }
  return worse(await writer.finish(), pooled);
}

/** examineFile in the main thread, an internal error (a bug) told as a worker's is. */
async function examineOrFail(file: string, opts: CliOptions, io: CliIO): Promise<Examined | { failed: string }> {
  try {
    return await examineFile(file, opts, io.stdin);
  } catch (err) {
    return { failed: `${inputName(file)}: internal error: ${messageOf(err)}` };
  }
}

/** A unit of a pooled --records run, in input order. */
type RecordItem =
  /** An input that cannot be opened: its message. */
  | { kind: 'unreadable'; message: string }
  /** A batch of lines; `first` is the number of its first line in its input (from 1). */
  | { kind: 'batch'; name: string; first: number; count: number; task: Extract<Task, { kind: 'records' }> }
  /** A byte range of a large file; `file` is shared by the file's ranges. */
  | { kind: 'range'; file: RangedFile; task: Extract<Task, { kind: 'range' }> }
  /** An input read to its end, or until it failed (`error`, told once its lines are answered). */
  | { kind: 'end'; name: string; error: unknown };

/** A file read as byte ranges: its lines answered so far (to number those of a lost range), and whether a range's reading failed (the rest is not read, as with --jobs 1). */
interface RangedFile {
  name: string;
  lines: number;
  stopped: boolean;
}

/** The ranges of `file` when it is a large regular file of long lines (range.ts), else null: read in line batches. */
async function rangesOf(file: string): Promise<RecordItem[] | null> {
  if (file === '-') return null;
  try {
    const st = await stat(file);
    const size = st.isFile() ? rangeSize(st.size, await readHead(file)) : null;
    if (size === null) return null;
    const ranged: RangedFile = { name: file, lines: 0, stopped: false };
    return planRanges(st.size, size).map((r) => ({ kind: 'range', file: ranged, task: { kind: 'range', file, ...r } }));
  } catch {
    return null; // openInput tells why it cannot be read
  }
}

const TIMEOUT = Symbol('timeout');

/** `p`, or TIMEOUT when it has not settled within `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(resolve, ms, TIMEOUT);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The record inputs' lines in batches, in order: each input opened and read
 * in the main thread, split with records()' own line splitter (a line past
 * the record limit is counted, not held: an Oversized marker), the lines of
 * a batch copied back to back into one buffer that is moved to its worker.
 */
async function* recordItems(opts: CliOptions, io: CliIO): AsyncGenerator<RecordItem> {
  for (const file of opts.files) {
    const ranges = await rangesOf(file);
    if (ranges !== null) {
      yield* ranges;
      yield { kind: 'end', name: file, error: null };
      continue;
    }
    let input: Input;
    try {
      input = await openInput(file, io.stdin);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      yield { kind: 'unreadable', message: `${inputName(file)}: ${err.message}` };
      continue;
    }
    const name = input.name;
    const splitter = createLineSplitter(DEFAULT_MAX_RECORD_BYTES);
    /** Lines split but not sent yet. */
    let lines: Line[] = [];
    let sent = 0;
    const add = (line: Line): void => {
      lines.push(line);
    };
    /** The first `count` lines of `lines` as a batch. */
    const batch = (count: number): RecordItem => {
      const taken = lines.slice(0, count);
      lines = lines.slice(count);
      const item: RecordItem = { kind: 'batch', name, first: sent + 1, count, task: { kind: 'records', ...packLines(taken) } };
      sent += count;
      return item;
    };
    /** How many of `lines` make a full batch (0: not enough yet). */
    const full = (): number => {
      let size = 0;
      for (let i = 0; i < lines.length && i < BATCH_RECORDS; i++) {
        const line = lines[i]!;
        if (!(line instanceof Oversized)) size += line.length;
        if (size >= BATCH_BYTES) return i + 1;
      }
      return lines.length >= BATCH_RECORDS ? BATCH_RECORDS : 0;
    };
    const chunks = (input.stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    let pending: Promise<IteratorResult<Buffer>> | null = null;
    let error: unknown = null;
    let finished = false;
    try {
      for (;;) {
        pending ??= chunks.next();
        let next: IteratorResult<Buffer> | typeof TIMEOUT;
        try {
          // a part-filled batch goes when the input pauses: a line is answered without the next one being needed
          next = lines.length > 0 ? await within(pending, PAUSE_MS) : await pending;
        } catch (err) {
          // the input failed mid-way: the lines read so far (an unended last one too) are answered first
          error = err;
          break;
        }
        if (next === TIMEOUT) {
          yield batch(lines.length);
          continue;
        }
        pending = null;
        if (next.done === true) break;
        splitter.push(next.value, add);
        for (let n = full(); n > 0; n = full()) yield batch(n);
      }
      splitter.end(add);
      while (lines.length > 0) yield batch(full() || lines.length);
      finished = true;
    } finally {
      // stopped early (stdout gone): let go of the file; standard input is left as it is
      if (!finished) input.close();
    }
    yield { kind: 'end', name, error };
  }
}

/** The output line(s) of a record whose batch was lost with its worker. */
function internalErrorLines(opts: CliOptions, count: number, message: string): string {
  const format = recordFormatter(opts);
  const record: RecordOutput = { error: { code: 'internal_error', message } };
  return format(record).repeat(count);
}

/** --records with --jobs > 1: the lines of every input in batches, one task each; the outputs written in input order. */
export async function recordsInPool(opts: CliOptions, io: CliIO, output: Output, heapMb: number | null): Promise<number> {
  const threads = opts.jobs;
  let code = EXIT_OK;
  /** Writes what an item comes to: `result` is the worker's, or null to run a batch in the main thread. False: stdout is gone. */
  const write = async (item: RecordItem, result: Settled<TaskResult | null> | null): Promise<boolean> => {
    if (item.kind === 'unreadable') {
      await output.diagnostic(item.message);
      code = worse(code, EXIT_USAGE);
      return true;
    }
    if (item.kind === 'end') {
      if (item.error !== null) {
        // the next inputs are still read
        await output.diagnostic(`${item.name}: ${reason(item.error)}`);
        code = worse(code, EXIT_USAGE);
      }
      return true;
    }
    if (item.kind === 'range') return writeRange(item, result);
    if (result === null) return runBatch(item.task, opts, output);
    if (!result.ok) {
      const message = `internal error: ${messageOf(result.error)}`;
      const lines = item.count === 1 ? `line ${item.first}` : `lines ${item.first}-${item.first + item.count - 1}`;
      if (!(await output.text(internalErrorLines(opts, item.count, message)))) return false;
      await output.diagnostic(`${item.name}: ${message} (${lines})`);
      code = worse(code, EXIT_INTERNAL);
      return true;
    }
    const done = result.value as Extract<TaskResult, { kind: 'records' }>;
    noteHeap(done.heap);
    return replay(done.recorded, output);
  };
  /** A range's output: run here (`result` null), or the worker's; its lines numbered on, a failed read stopping the file. */
  const writeRange = async (item: Extract<RecordItem, { kind: 'range' }>, result: Settled<TaskResult | null> | null): Promise<boolean> => {
    const { file, task } = item;
    if (file.stopped) return true;
    let lines: number;
    let inputError: string | null;
    if (result === null) {
      const run = await runRange(task.file, task, opts, output);
      if (run.gone) return false;
      lines = run.lines;
      inputError = run.inputError === null ? null : reason(run.inputError);
    } else if (!result.ok) {
      lines = await countRangeLines(task.file, task).catch(() => 0);
      const message = `internal error: ${messageOf(result.error)}`;
      const first = file.lines + 1;
      if (!(await output.text(internalErrorLines(opts, lines, message)))) return false;
      await output.diagnostic(`${file.name}: ${message} (${lines === 1 ? `line ${first}` : `lines ${first}-${first + lines - 1}`})`);
      code = worse(code, EXIT_INTERNAL);
      inputError = null;
    } else {
      const done = result.value as Extract<TaskResult, { kind: 'range' }>;
      noteHeap(done.heap);
      if (!(await replay(done.recorded, output))) return false;
      lines = done.lines;
      inputError = done.inputError;
    }
    file.lines += lines;
    if (inputError !== null) {
      // as with --jobs 1: the lines before the failure are answered, the rest of the file is not read
      file.stopped = true;
      await output.diagnostic(`${file.name}: ${inputError}`);
      code = worse(code, EXIT_USAGE);
    }
    return true;
  };
  stats = { threads: 0, tasks: 0, heaps: [] };
  const items = recordItems(opts, io);
  if (opts.jobsAuto) {
    const share = new MainThreadShare(AUTO_POOL_MS);
    while (share.open) {
      const next = await items.next();
      if (next.done === true) return code;
      if (!(await share.run(() => write(next.value, null)))) {
        await items.return(undefined);
        return code;
      }
    }
  }
  const pool = new Pool(threads, opts, heapMb);
  stats.threads = threads;
  try {
    await inOrder(
      items,
      (item) =>
        item.kind === 'batch'
          ? pool.run(item.task, [item.task.bytes.buffer as ArrayBuffer])
          : item.kind === 'range'
            ? pool.run(item.task)
            : Promise.resolve(null),
      AHEAD_PER_WORKER * threads,
      write,
    );
  } finally {
    code = worse(code, await pool.destroy(output));
  }
  return code;
}
