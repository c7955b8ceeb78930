/**
 * A --jobs worker process (forked by pool.ts): one task at a time, each one
 * input file, one doctor input, one batch of record lines or one byte range
 * of a large records file. It runs the code the main thread runs for the
 * same input (run-input.ts, doctor.ts's examineFile), writing into a
 * BufferSink whose bytes go back over the IPC channel. The run's options
 * come once, in OPTIONS_ENV. The process ends when its channel closes.
 */
import { getHeapStatistics } from 'node:v8';
import type { CliOptions } from './args.js';
import { examineFile, type Examined } from './doctor.js';
import { runBatch, runRange, type Batch } from './batch.js';
import type { ByteRange } from './range.js';
import { reason } from './input.js';
import { OPTIONS_ENV, type TaskMessage, type WorkerMessage } from './pool.js';
import { messageOf, runFile, type Outcome } from './run-input.js';
import { BufferSink, type Recorded } from './sink.js';

export type Task =
  | { kind: 'file'; file: string; index: number }
  | { kind: 'doctor'; file: string }
  /** A batch of record lines (batch.ts). */
  | ({ kind: 'records' } & Batch)
  /** The record lines a byte range of a file owns (range.ts). */
  | ({ kind: 'range'; file: string } & ByteRange);

/** The worker's memory when it finished the task. */
export interface WorkerHeap {
  /** The worker process. */
  pid: number;
  /** total_heap_size (v8.getHeapStatistics()): the heap V8 has committed. */
  heapTotal: number;
  /** used_heap_size. */
  heapUsed: number;
  /** peak_malloced_memory: the most V8 had malloc'ed outside its heap. */
  peakMalloced: number;
  /** The process's peak RSS so far, bytes (process.resourceUsage().maxRSS). */
  maxRss: number;
}

export type TaskResult =
  | { kind: 'file'; recorded: Recorded; outcome: Outcome; heap: WorkerHeap }
  | { kind: 'doctor'; examined: Examined; heap: WorkerHeap }
  | { kind: 'records'; recorded: Recorded; heap: WorkerHeap }
  /** `inputError`: the one-line reason the range's reading stopped (the lines before it answered), or null. */
  | { kind: 'range'; recorded: Recorded; lines: number; inputError: string | null; heap: WorkerHeap };

function heap(): WorkerHeap {
  const h = getHeapStatistics();
  return {
    pid: process.pid,
    heapTotal: h.total_heap_size,
    heapUsed: h.used_heap_size,
    peakMalloced: h.peak_malloced_memory,
    maxRss: process.resourceUsage().maxRSS * 1024,
  };
}

export async function runTask(task: Task, opts: CliOptions): Promise<TaskResult> {
  if (task.kind === 'doctor') return { kind: 'doctor', examined: await examineFile(task.file, opts, null), heap: heap() };
  const sink = new BufferSink();
  if (task.kind === 'file') {
    const outcome = await runFile(task.file, task.index, opts, sink, null);
    return { kind: 'file', recorded: sink.take(), outcome, heap: heap() };
  }
  if (task.kind === 'range') {
    const run = await runRange(task.file, task, opts, sink);
    const inputError = run.inputError === null ? null : reason(run.inputError);
    return { kind: 'range', recorded: sink.take(), lines: run.lines, inputError, heap: heap() };
  }
  await runBatch(task, opts, sink);
  return { kind: 'records', recorded: sink.take(), heap: heap() };
}

const send = (m: WorkerMessage): void => {
  process.send!(m);
};

// only when forked by the pool (the module is also imported for its types and runTask)
if (process.send !== undefined && process.env[OPTIONS_ENV] !== undefined) {
  const opts = JSON.parse(process.env[OPTIONS_ENV]) as CliOptions;
  process.on('message', (m: TaskMessage) => {
    runTask(m.task, opts).then(
      (result) => send({ id: m.id, result }),
      (err: unknown) => send({ id: m.id, error: messageOf(err) }),
    );
  });
  // the main process gone (killed, or it closed the channel): nothing more will be asked
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}
