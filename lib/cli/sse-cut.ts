/**
 * --jobs on one large SSE log (issue 32): the log cut into parts at response
 * boundaries, each part read by a worker from the middle of the log in the
 * state --jobs 1 would be in there, the parts' outputs written in order.
 *
 * Where to cut: s(b), the end of the first unambiguous terminal event at or
 * after byte b (a `data: [DONE]`, `event: message_stop` or
 * `event: response.completed|failed|incomplete` line, then the rest of its
 * event up to the blank line ending it). A JSON payload holds no bare CR or
 * LF, so a line that starts with these bytes after a line end is a field
 * line, whatever came before. The main thread finds s() of each range
 * start (a short read each: no scan of the whole log); a cut whose terminal
 * is not within MAX_CUT_SCAN is dropped. A log without any (Gemini SSE) is
 * read whole.
 *
 * The state a part starts in: its byte offset (known), the number of its
 * first frame (counted by the workers first: countFrames, SSE's own rules),
 * and what the normalizer carries between responses (the dialect in force,
 * invalid_utf8 reported, a given dialect checked), known only once the part
 * before it is read. So each part is read on a guess (no dialect yet, nothing
 * reported), and checked against the real state when its turn to be written
 * comes (exactStart): a wrong guess is read again in the main thread from
 * the real state. A part whose reading shows the cut was not between two
 * responses (one still open at its end), or state that spans responses
 * (lanes, agent sessions, a dialect outside CUT_DIALECTS), ends the cutting:
 * the rest of the log is read in one piece, in the main thread.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { DialectName } from '../events.js';
import { detectFraming } from '../framing/detect.js';
import { CREATE_STREAM_OPTIONS } from '../pipeline/option-keys.js';
import { makeGuardedEventsStage, type GuardedEventsStage } from '../pipeline/output-stage.js';
import { resolveStreamOptions, type CreateStreamOptions } from '../pipeline/stream-options.js';
import type { StreamResume, StreamTrail } from '../pipeline/events-stage.js';
import { targetNames } from '../encode/registry.js';
import type { CliOptions } from './args.js';
import { readHead, type ByteRange } from './range.js';
import { openFile, type Input } from './input.js';

/** A part's size before it is cut at the next response end. */
export const SSE_RANGE_BYTES = 8 * 1024 * 1024;
/**
 * A log is cut from this size on: below it, starting the workers and
 * compiling their hot code again (V8's compiler threads, once per worker)
 * costs about what they save on 2 cores (benchmarks/RESULTS.md).
 */
export const MIN_SSE_SPLIT_BYTES = 32 * SSE_RANGE_BYTES;
/** How far past a range start its terminal event is looked for. */
export const MAX_CUT_SCAN = 4 * 1024 * 1024;
/** The sizes in use (tests set small ones to cut small logs). */
export const sseCutSizes = { rangeBytes: SSE_RANGE_BYTES, minBytes: MIN_SSE_SPLIT_BYTES };

/**
 * The dialects whose responses share no state across a log (no lanes, no
 * sessions, no client messages): a part of such a log reads as the same
 * bytes do in the whole log, given the start state.
 */
export const CUT_DIALECTS: ReadonlySet<DialectName> = new Set<DialectName>([
  'anthropic-messages',
  'xai-messages',
  'openai-chat',
  'xai-chat',
  'openai-responses',
  'xai-responses',
  'gemini-interactions',
  'gemini',
]);

/** The lines a terminal event is known by (the whole line, without its line end). */
const TERMINALS: readonly Buffer[] = [
  'data: [DONE]',
  'event: message_stop',
  'event: response.completed',
  'event: response.failed',
  'event: response.incomplete',
].flatMap((line) => [Buffer.from(line), Buffer.from(line.replace(': ', ':'))]);

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;

/** The output modes a cut log gives the same bytes in (frames carry SSE ids; media files and other wires keep state of their own). */
export function cuttable(opts: CliOptions): boolean {
  return (
    opts.command === 'run' &&
    !opts.records &&
    (opts.out === 'events' || opts.out === 'final' || opts.out === 'rows' || opts.out === 'text') &&
    opts.to === null &&
    opts.audioOut === null &&
    opts.filesOut === null &&
    (opts.framing === 'auto' || opts.framing === 'sse') &&
    (opts.dialect === 'auto' || CUT_DIALECTS.has(opts.dialect))
  );
}

/** Whether `line` (buf[start, end)) is a terminal line. */
function isTerminal(buf: Uint8Array, start: number, end: number): boolean {
  const n = end - start;
  for (const t of TERMINALS) {
    if (t.length !== n) continue;
    let i = 0;
    while (i < n && buf[start + i] === t[i]) i++;
    if (i === n) return true;
  }
  return false;
}

/**
 * s(b) over `buf`, the bytes of the file from `b - 1` (`atEof`: buf runs to
 * the file's end): the file offset just after the blank line ending the
 * first event at or after b that holds a terminal line, or null when `buf`
 * holds none.
 */
export function cutIn(buf: Uint8Array, b: number, atEof: boolean): number | null {
  const len = buf.length;
  let nextLF = -2;
  let nextCR = -2;
  /** The line end at or after `p`, or -1 (cached positions: one pass over buf). */
  const eolFrom = (p: number): number => {
    if (nextLF !== -1 && nextLF < p) nextLF = buf.indexOf(LF, p);
    if (nextCR !== -1 && nextCR < p) nextCR = buf.indexOf(CR, p);
    if (nextCR === -1) return nextLF;
    return nextLF === -1 || nextCR < nextLF ? nextCR : nextLF;
  };
  /** Past the line end at `eol` (CRLF is one), or -1 when a CR ends buf before the file ends (an LF may follow). */
  const past = (eol: number): number => {
    if (buf[eol] === LF) return eol + 1;
    if (eol + 1 < len) return buf[eol + 1] === LF ? eol + 2 : eol + 1;
    return atEof ? eol + 1 : -1;
  };
  // buf[0] is byte b - 1: position 1 starts a line unless it is inside one (or between a CR and its LF)
  let p = 1;
  if (!(buf[0] === LF || (buf[0] === CR && buf[1] !== LF))) {
    const eol = eolFrom(1);
    if (eol === -1) return null;
    p = past(eol);
  }
  let inTerminal = false;
  while (p !== -1 && p < len) {
    const eol = eolFrom(p);
    if (eol === -1) return null; // an unended line: the file's last, or past the window
    const next = past(eol);
    if (next === -1) return null;
    if (inTerminal) {
      if (eol === p) return b - 1 + next;
    } else if (isTerminal(buf, p, eol)) inTerminal = true;
    p = next;
  }
  return null;
}

/** s(b) in `file` (of `size` bytes), or null when no terminal event ends within MAX_CUT_SCAN of b. */
export async function findCut(handle: FileHandle, b: number, size: number, scan = MAX_CUT_SCAN): Promise<number | null> {
  const to = Math.min(size, b + scan);
  const buf = Buffer.allocUnsafe(to - (b - 1));
  const { bytesRead } = await handle.read(buf, 0, buf.length, b - 1);
  const cut = cutIn(buf.subarray(0, bytesRead), b, to === size && bytesRead === buf.length);
  return cut !== null && cut < size ? cut : null;
}

/**
 * The parts a large SSE log is cut into (each range starting at a cut: the
 * first at 0, the last open-ended), or null when it is not cut: too small,
 * not SSE (its first 4 MiB, `head`), or no cut found.
 */
export async function planSseRanges(file: string, size: number, head: Uint8Array): Promise<ByteRange[] | null> {
  const { rangeBytes, minBytes } = sseCutSizes;
  if (size < Math.max(minBytes, 2 * rangeBytes)) return null;
  if (detectFraming(head) !== 'sse') return null;
  const starts: number[] = [0];
  const handle = await open(file, 'r');
  try {
    for (let b = rangeBytes; b < size; b += rangeBytes) {
      if (b <= starts[starts.length - 1]!) continue;
      const cut = await findCut(handle, b, size);
      if (cut !== null && cut > starts[starts.length - 1]!) starts.push(cut);
    }
  } finally {
    await handle.close();
  }
  if (starts.length < 2) return null;
  return starts.map((start, i) => ({ start, end: i + 1 < starts.length ? starts[i + 1]! : null }));
}

/** What countFrames carries from one chunk to the next: the line under way. */
interface FrameCount {
  frames: number;
  /** The event under way has a data field. */
  hasData: boolean;
  /** Bytes of the line under way so far, and its first five. */
  lineBytes: number;
  head: string;
  /** The last chunk ended with a CR: an LF starting the next one is part of that line end. */
  skipLF: boolean;
}

const DATA_COLON = 'data:';

/** The line head[0..) is a data field: `data:…`, or `data` alone. */
function dataField(head: string, lineBytes: number): boolean {
  return head === DATA_COLON || (lineBytes === 4 && head === 'data');
}

/** Counts the frames (events with data, dispatched at their blank line) of one chunk, as the SSE framer would. */
function countChunk(c: FrameCount, buf: Uint8Array): void {
  const len = buf.length;
  let p = 0;
  if (c.skipLF) {
    c.skipLF = false;
    if (buf[0] === LF) p = 1;
  }
  let nextLF = -2;
  let nextCR = -2;
  while (p < len) {
    if (nextLF !== -1 && nextLF < p) nextLF = buf.indexOf(LF, p);
    if (nextCR !== -1 && nextCR < p) nextCR = buf.indexOf(CR, p);
    const eol = nextCR === -1 ? nextLF : nextLF === -1 || nextCR < nextLF ? nextCR : nextLF;
    if (eol !== -1 && c.lineBytes === 0) {
      // a whole line in the chunk (nearly all): its bytes looked at where they are
      if (eol === p) {
        if (c.hasData) c.frames++;
        c.hasData = false;
      } else if (buf[p] === 0x64 && buf[p + 1] === 0x61 && buf[p + 2] === 0x74 && buf[p + 3] === 0x61 && (eol - p === 4 || buf[p + 4] === COLON)) c.hasData = true;
    } else {
      const end = eol === -1 ? len : eol;
      if (c.head.length < 5) {
        const take = Math.min(5 - c.head.length, end - p);
        for (let i = 0; i < take; i++) c.head += String.fromCharCode(buf[p + i]!);
      }
      c.lineBytes += end - p;
      if (eol === -1) return;
      // the end of a line begun in an earlier chunk
      if (c.lineBytes === 0) {
        if (c.hasData) c.frames++;
        c.hasData = false;
      } else if (dataField(c.head, c.lineBytes)) c.hasData = true;
      c.lineBytes = 0;
      c.head = '';
    }
    if (buf[eol] === CR) {
      if (eol + 1 === len) {
        c.skipLF = true;
        return;
      }
      p = buf[eol + 1] === LF ? eol + 2 : eol + 1;
    } else p = eol + 1;
  }
}

/**
 * The number of frames the SSE framer makes of `file`'s bytes [start, end)
 * (end null: to the end; an unended last event counts, as the framer
 * flushes it), read 1 MiB at a time. A part starts at an event's start, so
 * its frames are numbered from the count of those before it.
 */
export async function countFrames(file: string, start: number, end: number | null): Promise<number> {
  const handle = await open(file, 'r');
  const c: FrameCount = { frames: 0, hasData: false, lineBytes: 0, head: '', skipLF: false };
  try {
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    let pos = start;
    let first = true;
    for (;;) {
      const want = end === null ? chunk.length : Math.min(chunk.length, end - pos);
      if (want <= 0) break;
      const { bytesRead } = await handle.read(chunk, 0, want, pos);
      if (bytesRead === 0) break;
      let buf = chunk.subarray(0, bytesRead);
      // the framer drops a BOM at the start of the input (lines.ts)
      if (first && start === 0 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
      first = false;
      countChunk(c, buf);
      pos += bytesRead;
    }
  } finally {
    await handle.close();
  }
  // the end of the input: an unended last line is a line; an event with data still open is flushed
  if (c.lineBytes > 0 && dataField(c.head, c.lineBytes)) c.hasData = true;
  return c.frames + (c.hasData ? 1 : 0);
}

/** The state a part starts in, without the callback (it crosses to a worker). */
export type PartStart = Omit<StreamResume, 'onTrail'>;

/** A part of a log: its bytes, the state it starts in, and where its trail goes. */
export interface FilePart extends ByteRange {
  readonly from: PartStart;
  onTrail(trail: StreamTrail): void;
}

/** The events stage of a part: createGuardedEventsStage's, resumed (see StreamResume). */
export function resumedEventsStage(read: CreateStreamOptions, part: FilePart): GuardedEventsStage {
  const resolved = resolveStreamOptions(read, CREATE_STREAM_OPTIONS, 'createGuardedEventsStage()', undefined, targetNames);
  return makeGuardedEventsStage({ ...resolved, resume: { ...part.from, onTrail: (t) => part.onTrail(t) } });
}

/** The start of the whole log (part 0, and the fallback's state before anything is known). */
export const LOG_START: Omit<PartStart, 'offset'> = { frame: 0, dialect: null, reportedUtf8: false, checked: false };

/**
 * The start a later part is first read from, before the part before it is
 * read: its offset and first frame number (counted), no dialect yet, nothing
 * reported, a given dialect checked (part 0 holds a whole response).
 */
export function guessedStart(offset: number, frame: number): PartStart {
  return { offset, frame, dialect: null, reportedUtf8: false, checked: true };
}

/** The real start of the part after one that ended with `trail`, at `offset`. */
export function startAfter(trail: StreamTrail, offset: number): PartStart {
  return { offset, frame: trail.frames, dialect: trail.dialect, reportedUtf8: trail.reportedUtf8, checked: trail.checked };
}

/**
 * Whether a part read from `guess` gave what it gives read from `real`:
 * the same first frame; the dialect it detected on its own is the one in
 * force (a payload it could not place is read by that dialect the same
 * way, held or not); invalid_utf8 not reported twice; a given dialect
 * checked where it had been. `auto`: the dialect option is auto.
 */
export function exactStart(guess: PartStart, real: PartStart, trail: StreamTrail, auto: boolean): boolean {
  if (guess.offset !== real.offset || guess.frame !== real.frame) return false;
  if (auto ? guess.dialect !== real.dialect && !(guess.dialect === null && trail.detected === real.dialect) : guess.checked !== real.checked) return false;
  return !(real.reportedUtf8 && !guess.reportedUtf8 && trail.reportedUtf8);
}

/**
 * Whether a part's trail lets the cutting go on after it: no response open
 * at its end (the cut was between two responses), nothing spanning
 * responses, only dialects of CUT_DIALECTS.
 */
export function cleanEnd(trail: StreamTrail): boolean {
  return !trail.open && !trail.spanning && trail.dialects.every((d) => CUT_DIALECTS.has(d));
}

/** A part's bytes as an input (its name the file's), read as a worker reads its files (blocking reads on its own thread). */
export function openPart(file: string, part: ByteRange): Input {
  return openFile(file, part.start, part.end);
}

/** The parts of `file` when it is a large regular SSE log with cuts (planSseRanges), else null (an unreadable file too: its reader says why). */
export async function sseRangesOf(file: string): Promise<ByteRange[] | null> {
  if (file === '-') return null;
  try {
    const st = await stat(file);
    if (!st.isFile() || st.size < sseCutSizes.minBytes) return null;
    return await planSseRanges(file, st.size, await readHead(file));
  } catch {
    return null;
  }
}
