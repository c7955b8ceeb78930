/**
 * --jobs on one large SSE log: its parts (sse-cut.ts) read by the workers,
 * written in order by the main thread, each checked before it is written.
 * The workers first count each part's frames (fast: a line scan), so that
 * every part starts with the right frame number; then each part is read
 * from its guessed start, at most `ahead` of the writer (the first from
 * the log's start: no guess). The main thread reads nothing itself: on two
 * cores a third thread warming up its own hot code costs more than it
 * reads. When a part's turn
 * comes, the part before it has been written, so the real start is known:
 * a guess that made a difference is read again from the real start in the
 * main thread; a cut that was not between two responses (or a log whose
 * responses share state) ends the cutting, and the rest of the log is read
 * in one piece in the main thread. Either way the output is --jobs 1's.
 */
import { stat } from 'node:fs/promises';
import { EXIT_INTERNAL, EXIT_OK, worse, type CliOptions } from './args.js';
import type { CliIO } from './io.js';
import type { Output } from './output.js';
import { inputName } from './input.js';
import type { ByteRange } from './range.js';
import { messageOf, progressBar, runFile, type Outcome } from './run-input.js';
import { BufferSink, replay, type Recorded } from './sink.js';
import { cleanEnd, exactStart, guessedStart, LOG_START, startAfter, type PartStart } from './sse-cut.js';
import type { StreamTrail } from '../pipeline/events-stage.js';
import type { Task, TaskResult, WorkerHeap } from './worker.js';

type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** How the last cut log was read (tests, benchmarks): parts, those read again in the main thread, and whether the cutting ended early. */
export interface SplitStats {
  parts: number;
  reread: number;
  rest: boolean;
}

let stats: SplitStats = { parts: 0, reread: 0, rest: false };

export function lastSplitStats(): SplitStats {
  return stats;
}

/** What the pool gives a log's reader: tasks run, results seen, and inOrder. */
export interface PartPool {
  run(task: Task): Promise<TaskResult>;
  noteHeap(heap: WorkerHeap): void;
  inOrder<T, R>(items: Iterable<T>, start: (item: T) => Promise<R>, ahead: number, write: (item: T, result: Settled<R>) => Promise<boolean>): Promise<void>;
  ahead: number;
}

/** A part's reading: its output, and how it ended (trail null: it stopped). */
interface PartRead {
  recorded: Recorded;
  outcome: Outcome;
  trail: StreamTrail | null;
}

/** A part read in the main thread from `from` (end null: the rest of the log), written to `sink`. */
async function readHere(file: string, range: ByteRange, from: PartStart, opts: CliOptions, sink: BufferSink | Output): Promise<{ outcome: Outcome; trail: StreamTrail | null }> {
  let trail: StreamTrail | null = null;
  const outcome = await runFile(file, 0, opts, sink, null, { ...range, from, onTrail: (t) => (trail = t) });
  return { outcome, trail };
}

/** Reads `file`, cut into `ranges` (the first at 0), on the pool; returns the exit status. */
export async function runLogInParts(file: string, ranges: readonly ByteRange[], opts: CliOptions, io: CliIO, output: Output, pool: PartPool): Promise<number> {
  stats = { parts: ranges.length, reread: 0, rest: false };
  // the bar moves a part at a time, as the parts are written
  const size = (await stat(file)).size;
  const progress = progressBar(file, size, opts, io);
  const clear = (): void => progress?.clear();
  const auto = opts.dialect === 'auto';
  // each part's first frame: the frames of those before it, counted by the workers first
  const counts = ranges.slice(0, -1).map((r) => pool.run({ kind: 'sse-count', file, start: r.start, end: r.end }));
  for (const c of counts) c.catch(() => {}); // (a failed count fails the parts after it, told there)
  const firsts: Promise<number>[] = [Promise.resolve(0)];
  for (let i = 1; i < ranges.length; i++) {
    firsts.push(
      Promise.all([firsts[i - 1]!, counts[i - 1]!]).then(([before, count]) => {
        const c = count as Extract<TaskResult, { kind: 'sse-count' }>;
        pool.noteHeap(c.heap);
        return before + c.frames;
      }),
    );
    // (a part not started when the run stops early never reads it: its rejection, the pool destroyed, is no one's)
    firsts[i]!.catch(() => {});
  }
  const guess = async (i: number): Promise<PartStart> => (i === 0 ? { offset: 0, ...LOG_START } : guessedStart(ranges[i]!.start, await firsts[i]!));
  let code = EXIT_OK;
  /** The real start of the next part to write. */
  let real: PartStart = { offset: 0, ...LOG_START };
  try {
    await pool.inOrder(
      ranges.map((range, i) => ({ range, i })),
      async ({ range, i }) => pool.run({ kind: 'sse-part', file, index: 0, ...range, from: await guess(i) }),
      pool.ahead,
      async ({ range, i }, settled) => {
        const last = i === ranges.length - 1;
        if (!settled.ok) {
          clear();
          await output.diagnostic(`${inputName(file)}: internal error: ${messageOf(settled.error)}`);
          code = EXIT_INTERNAL;
          return false;
        }
        const done = settled.value as Extract<TaskResult, { kind: 'sse-part' }>;
        pool.noteHeap(done.heap);
        let read: PartRead;
        if (i === 0 || (done.trail !== null && exactStart(await guess(i), real, done.trail, auto))) read = done;
        else {
          // read on a wrong guess (or stopped, its guess unchecked): again, from the real start
          stats.reread++;
          const sink = new BufferSink();
          read = { ...(await readHere(file, range, real, opts, sink)), recorded: sink.take() };
        }
        const { outcome, trail, recorded } = read;
        if (!last && !outcome.stop && (trail === null || (!trail.abandoned && !cleanEnd(trail)))) {
          // not a cut between two responses (or state across them): the rest of the log in one piece
          stats.rest = true;
          clear();
          const rest = await readHere(file, { start: range.start, end: null }, real, opts, output);
          code = worse(code, rest.outcome.code);
          return false;
        }
        if (!(await replay(recorded, output, clear))) return false; // stdout gone
        progress?.add((range.end ?? size) - range.start);
        code = worse(code, outcome.code);
        if (outcome.stop || trail === null || trail.abandoned || last) return false; // after a fatal error the log is not read further
        real = startAfter(trail, ranges[i + 1]!.start);
        return true;
      },
    );
  } finally {
    progress?.done();
  }
  return code;
}
