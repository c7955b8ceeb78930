/**
 * --records with --jobs on one large file: the file cut into byte ranges,
 * each read by a worker on its own (the main thread neither reads nor
 * copies the records), cut at line boundaries the way Hadoop cuts input
 * splits: a range owns every line that *starts* inside it, so it skips the
 * end of a line begun before it and reads past its own end to finish its
 * last line. Every line is owned by exactly one range, whatever the cut
 * points, and the ranges' outputs written in order are --jobs 1's bytes.
 *
 * Only records can be cut this way: a record is one line, whole. An SSE log
 * is cut at response ends instead, and read from the state the log is in
 * there (sse-cut.ts).
 */
import { open, type FileHandle } from 'node:fs/promises';

/** A piece of a file: the lines that start in [start, end); `end` null: to the end of the file, however long it has grown. */
export interface ByteRange {
  start: number;
  end: number | null;
}

/**
 * A range holds about this many lines (of the first SAMPLE_BYTES' average
 * length), within RANGE_BYTES and MAX_RANGE_BYTES: a range reads on to
 * finish its last line and the next one skips it, so a range only a line
 * long would read most bytes twice (measured: 1 MiB ranges of 1 MB lines
 * were slower than line batches).
 */
export const LINES_PER_RANGE = 16;
export const RANGE_BYTES = 1024 * 1024;
export const MAX_RANGE_BYTES = 32 * 1024 * 1024;
/** A file is cut only from this size on: below it, the line batches of jobs.ts do as well. */
export const MIN_SPLIT_BYTES = 4 * RANGE_BYTES;
/**
 * ...and only when its lines are this long on average (in the first
 * SAMPLE_BYTES): a range of short lines (`path` records) would hold
 * thousands of records, each a file to read, and their whole output.
 */
export const MIN_AVERAGE_LINE = 1024;
export const SAMPLE_BYTES = 4 * 1024 * 1024;

const LF = 0x0a;
/**
 * Read size. Larger than a stream's 64 KiB: fewer pieces for the line
 * splitter to put back together (1 MB lines: 20-25 % less CPU read 1 MiB
 * at a time). A line that fits in one read is a view of it, so what the
 * records under way hold is still about their own size.
 */
const CHUNK = 1024 * 1024;

/** `size` bytes as ranges of RANGE_BYTES, the last one open-ended. */
export function planRanges(size: number, rangeBytes = RANGE_BYTES): ByteRange[] {
  const ranges: ByteRange[] = [];
  let start = 0;
  while (size - start >= 2 * rangeBytes) {
    ranges.push({ start, end: start + rangeBytes });
    start += rangeBytes;
  }
  ranges.push({ start, end: null });
  return ranges;
}

/**
 * The range size for a file of `size` bytes whose first bytes are `head`,
 * or null when it is not worth cutting (too small, or short lines).
 */
export function rangeSize(size: number, head: Buffer): number | null {
  if (size < MIN_SPLIT_BYTES) return null;
  // no newline in the sample: one line of at least its length so far
  const average = head.length / Math.max(1, newlines(head));
  if (average < MIN_AVERAGE_LINE) return null;
  return Math.min(MAX_RANGE_BYTES, Math.max(RANGE_BYTES, Math.ceil(average * LINES_PER_RANGE)));
}

/** The first bytes of `file` (up to `bytes`). */
export async function readHead(file: string, bytes = SAMPLE_BYTES): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(bytes);
    const { bytesRead } = await handle.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** What reading a range found: how many lines it owns (an unended last line of the file counts). */
export interface RangeCount {
  lines: number;
}

/**
 * The bytes of the lines `range` owns, in chunks (read `chunkBytes` at a
 * time); `count.lines` is their number once the generator is done. A read
 * error is thrown where it happens, after the chunks read before it.
 */
export async function* rangeBytes(file: string, range: ByteRange, count: RangeCount = { lines: 0 }, chunkBytes = CHUNK): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r');
  try {
    const end = range.end ?? Infinity;
    // a range starts with a line of its own only if the byte before it ends a line
    let pos = range.start > 0 ? range.start - 1 : 0;
    /** Inside the line the byte before the range belongs to (not the range's). */
    let skipping = range.start > 0;
    /** The last byte given out (a newline: no unended line so far). */
    let last = LF;
    for (;;) {
      const chunk = await readAt(handle, pos, chunkBytes);
      if (chunk.length === 0) {
        // the end of the file: an unended last line is a line too
        if (last !== LF) count.lines++;
        return;
      }
      let from = 0;
      if (skipping) {
        const nl = chunk.indexOf(LF);
        if (nl === -1) {
          pos += chunk.length;
          continue;
        }
        from = nl + 1;
        skipping = false;
        if (pos + from >= end) return; // that line ran past the range: it owns none
      }
      // the range's own lines: the last one ends at the first newline at or after end - 1
      const stop = end === Infinity ? -1 : chunk.indexOf(LF, Math.max(from, end - 1 - pos));
      const piece = chunk.subarray(from, stop === -1 ? chunk.length : stop + 1);
      if (piece.length > 0) {
        count.lines += newlines(piece);
        last = piece[piece.length - 1]!;
        yield piece;
      }
      if (stop !== -1) return;
      pos += chunk.length;
    }
  } finally {
    await handle.close();
  }
}

function newlines(b: Buffer): number {
  let n = 0;
  for (let at = b.indexOf(LF); at !== -1; at = b.indexOf(LF, at + 1)) n++;
  return n;
}

async function readAt(handle: FileHandle, pos: number, bytes: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(bytes);
  const { bytesRead } = await handle.read(buf, 0, bytes, pos);
  return buf.subarray(0, bytesRead);
}

/** How many lines `range` owns (a worker lost its output: each still gets its line). */
export async function countRangeLines(file: string, range: ByteRange): Promise<number> {
  const count = { lines: 0 };
  for await (const _ of rangeBytes(file, range, count));
  return count.lines;
}
