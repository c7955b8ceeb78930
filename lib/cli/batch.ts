/**
 * --records with --jobs: the units of work a worker (or the main thread)
 * reads through records(). A batch of record lines, as the main thread
 * splits them with records()' own line splitter (lib/records/lines.ts): the
 * lines back to back in one buffer (moved to the worker, not copied) and
 * their lengths, -(n + 1) for a line of n bytes too long to hold (an
 * Oversized marker). Or a byte range of a large file (range.ts), which the
 * worker reads itself.
 */
import { Readable } from 'node:stream';
import { Oversized, type Line } from '../records/lines.js';
import type { CliOptions } from './args.js';
import { pumpRecords } from './run-input.js';
import { rangeBytes, type ByteRange } from './range.js';
import type { Sink } from './sink.js';

export interface Batch {
  bytes: Uint8Array;
  lines: number[];
}

export function packLines(lines: readonly Line[]): Batch {
  let size = 0;
  const lengths: number[] = [];
  for (const line of lines) {
    if (line instanceof Oversized) lengths.push(-line.bytes - 1);
    else {
      lengths.push(line.length);
      size += line.length;
    }
  }
  // its own ArrayBuffer, so that it can be transferred
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const line of lines) {
    if (line instanceof Oversized) continue;
    bytes.set(line, at);
    at += line.length;
  }
  return { bytes, lines: lengths };
}

export function unpackLines(batch: Batch): Line[] {
  const { bytes } = batch;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lines: Line[] = [];
  let at = 0;
  for (const n of batch.lines) {
    if (n < 0) lines.push(new Oversized(-n - 1));
    else {
      lines.push(buf.subarray(at, at + n));
      at += n;
    }
  }
  return lines;
}

/** The batch's records through records() into `sink`, one output each, in order; false when stdout is gone. */
export async function runBatch(batch: Batch, opts: CliOptions, sink: Sink): Promise<boolean> {
  // an array never fails: no input error here
  const { gone } = await pumpRecords(Readable.from(unpackLines(batch)), opts, sink, true);
  return !gone;
}

/** What running a range came to: stdout gone, how many lines it had, the error that stopped its reading (the lines before it are answered). */
export interface RangeRun {
  gone: boolean;
  lines: number;
  inputError: unknown;
}

/** The records of the lines `range` of `file` owns through records() into `sink`, one output each, in order. */
export async function runRange(file: string, range: ByteRange, opts: CliOptions, sink: Sink): Promise<RangeRun> {
  const count = { lines: 0 };
  const { gone, inputError } = await pumpRecords(Readable.from(rangeBytes(file, range, count)), opts, sink, false);
  return { gone, lines: count.lines, inputError };
}
