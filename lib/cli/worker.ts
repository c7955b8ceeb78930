/**
 * A --jobs worker thread (run by the piscina pool of jobs.ts): one task is
 * one input file, one doctor input, one batch of record lines, one byte
 * range of a large records file, or one part of a large SSE log (or its
 * frame count, sse-cut.ts). It runs
 * the code the main thread runs for the same input (run-input.ts,
 * doctor.ts's examineFile), writing into a BufferSink whose bytes are
 * transferred back, not copied. The run's options come once, as the
 * worker's workerData.
 */
import { getHeapStatistics } from 'node:v8';
import { threadId, workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { CliOptions } from './args.js';
import { examineFile, type Examined } from './doctor.js';
import { runBatch, runRange, type Batch } from './batch.js';
import type { ByteRange } from './range.js';
import { reason } from './input.js';
import { runFile, type Outcome } from './run-input.js';
import { BufferSink, type Recorded } from './sink.js';
import { threadCpuMs } from './thread-cpu.js';
import { countFrames, type PartStart } from './sse-cut.js';
import type { StreamTrail } from '../pipeline/events-stage.js';

export type Task =
  | { kind: 'file'; file: string; index: number }
  | { kind: 'doctor'; file: string }
  /** A batch of record lines (batch.ts). */
  | ({ kind: 'records' } & Batch)
  /** The record lines a byte range of a file owns (range.ts). */
  | ({ kind: 'range'; file: string } & ByteRange)
  /** The frames of a part of a large SSE log (sse-cut.ts), counted before it is read. */
  | ({ kind: 'sse-count'; file: string } & ByteRange)
  /** A part of a large SSE log, read from the state `from` (sse-cut.ts). */
  | ({ kind: 'sse-part'; file: string; index: number; from: PartStart } & ByteRange);

/** The worker's heap when it finished the task (v8.getHeapStatistics()): worker threads share the process's RSS. */
export interface WorkerHeap {
  threadId: number;
  /** total_heap_size: the heap V8 has committed. */
  heapTotal: number;
  /** used_heap_size. */
  heapUsed: number;
  /** peak_malloced_memory: the most V8 had malloc'ed outside its heap. */
  peakMalloced: number;
  /** The worker thread's CPU time so far, ms (thread-cpu.ts; null off Linux). */
  cpuMs: number | null;
}

export type TaskResult =
  | { kind: 'file'; recorded: Recorded; outcome: Outcome; heap: WorkerHeap }
  | { kind: 'doctor'; examined: Examined; heap: WorkerHeap }
  | { kind: 'records'; recorded: Recorded; heap: WorkerHeap }
  /** `inputError`: the one-line reason the range's reading stopped (the lines before it answered), or null. */
  | { kind: 'range'; recorded: Recorded; lines: number; inputError: string | null; heap: WorkerHeap }
  | { kind: 'sse-count'; frames: number; heap: WorkerHeap }
  /** `trail`: how the part's reading ended (null: it stopped, --strict or stdout gone). */
  | { kind: 'sse-part'; recorded: Recorded; outcome: Outcome; trail: StreamTrail | null; heap: WorkerHeap };

function heap(): WorkerHeap {
  const h = getHeapStatistics();
  return { threadId, heapTotal: h.total_heap_size, heapUsed: h.used_heap_size, peakMalloced: h.peak_malloced_memory, cpuMs: threadCpuMs() };
}

/** What a task returns: its TaskResult, or the result wrapped by piscina's move() (its output's bytes to be moved, not copied), which piscina unwraps. */
type Returned = object;

/** The result with its output's bytes moved to the main thread (their ArrayBuffer is the sink's own): piscina unwraps it. */
function moved(result: TaskResult & { recorded: Recorded }): Returned {
  return move({ [transferableSymbol]: [result.recorded.bytes.buffer], [valueSymbol]: result });
}

export default async function runTask(task: Task): Promise<Returned> {
  const opts = workerData as CliOptions;
  if (task.kind === 'doctor') return { kind: 'doctor', examined: await examineFile(task.file, opts, null), heap: heap() };
  if (task.kind === 'sse-count') return { kind: 'sse-count', frames: await countFrames(task.file, task.start, task.end), heap: heap() };
  const sink = new BufferSink();
  if (task.kind === 'file') {
    const outcome = await runFile(task.file, task.index, opts, sink, null);
    return moved({ kind: 'file', recorded: sink.take(), outcome, heap: heap() });
  }
  if (task.kind === 'sse-part') {
    let trail: StreamTrail | null = null;
    const part = { start: task.start, end: task.end, from: task.from, onTrail: (t: StreamTrail) => (trail = t) };
    const outcome = await runFile(task.file, task.index, opts, sink, null, part);
    return moved({ kind: 'sse-part', recorded: sink.take(), outcome, trail, heap: heap() });
  }
  if (task.kind === 'range') {
    const run = await runRange(task.file, task, opts, sink);
    const inputError = run.inputError === null ? null : reason(run.inputError);
    return moved({ kind: 'range', recorded: sink.take(), lines: run.lines, inputError, heap: heap() });
  }
  await runBatch(task, opts, sink);
  return moved({ kind: 'records', recorded: sink.take(), heap: heap() });
}
