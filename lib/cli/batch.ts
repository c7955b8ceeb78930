/**
 * --records with --jobs: a batch of record lines, as the main thread splits
 * them with records()' own line splitter (lib/records/lines.ts) and a
 * worker (or the main thread) reads them through records(): the lines back
 * to back in one buffer (moved to the worker, not copied) and their lengths,
 * -(n + 1) for a line of n bytes too long to hold (an Oversized marker).
 */
import { Readable } from 'node:stream';
import { Oversized, type Line } from '../records/lines.js';
import type { CliOptions } from './args.js';
import { pumpRecords } from './run-input.js';
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
