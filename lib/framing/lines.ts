/**
 * Byte-level line splitter shared by the SSE and NDJSON framers.
 * Lines end in CRLF, LF or CR; a CR at the end of one chunk and an LF at the
 * start of the next are one line end. Splitting happens on bytes (CR and LF
 * never occur inside a multi-byte UTF-8 sequence), so code points split across
 * chunks need no special care, and byte offsets come for free.
 * A line that spans chunks is kept as fragments and joined once (linear time).
 */
import { FrameTooLargeError } from '../errors.js';
import { copy } from '../bytes/index.js';
import { objectArray } from '../arrays.js';
import { createBomStripper, EMPTY_BUFFER, joinFragments } from './bytes.js';

/** Called for each complete line: the bytes are buf[start, end); `offset` is the line's absolute byte offset. */
export type LineHandler = (buf: Uint8Array, start: number, end: number, offset: number) => void;

export interface LineSplitter {
  /** Returns the bytes at buf's end left unread (0 unless the line-start hook said LEAVE_UNREAD). */
  push(buf: Uint8Array): number;
  /** End of input: returns the unterminated last line through `onLine` when `flush` is true. */
  end(flush: boolean): void;
}


/**
 * The next LF from `pos`, for a line starting with `e` (SSE's `event:` lines
 * are short: a plain loop beats Buffer#indexOf's call there), or -1.
 */
function nearLF(buf: Uint8Array, pos: number, len: number): number {
  const near = pos + 48 < len ? pos + 48 : len;
  for (let i = pos + 1; i < near; i++) if (buf[i] === 10) return i;
  return near === len ? -1 : buf.indexOf(10, near);
}

/**
 * Offered the start of each line that does not continue an earlier chunk's
 * line: returns where reading goes on when it consumed whole lines itself,
 * -1 when it did not, or LEAVE_UNREAD.
 */
export type LineStartHook = (buf: Uint8Array, pos: number, offset: number) => number;

/**
 * A line-start hook's answer: stop reading `buf` at `pos`; the caller pushes
 * buf[pos, …) again, at the start of a later buffer (the fused stage holds
 * back an SSE event the chunk cuts off, see fast/cut-events.ts). `push`
 * returns how many bytes it left unread.
 */
export const LEAVE_UNREAD = -2;

/**
 * `frameOf` names the frame an overlong line belongs to, for the error.
 * `startOffset`: the input is read from this byte of a larger one (a --jobs
 * range, lib/cli/sse-cut.ts): offsets count from there, and no BOM is looked for.
 */
export function createLineSplitter(
  maxLineBytes: number,
  onLine: LineHandler,
  frameOf: () => number,
  atLineStart?: LineStartHook,
  startOffset = 0,
): LineSplitter {
  const fragments = objectArray<Uint8Array>();
  let fragmentBytes = 0;
  let consumed = startOffset; // bytes before the current chunk
  let lineOffset = 0; // offset where the pending line began
  let skipLF = false;

  /** Reads buf[0, len) (`consumed` is the offset of buf[0]); returns the bytes left unread (see LEAVE_UNREAD). */
  function scan(buf: Uint8Array): number {
    const len = buf.length;
    let pos = 0;
    if (skipLF) {
      skipLF = false;
      if (buf[0] === 10) pos = 1;
    }
    if (fragmentBytes === 0) lineOffset = consumed + pos;
    let nextLF = -2;
    let nextCR = -2;
    while (pos < len) {
      if (atLineStart !== undefined && fragmentBytes === 0) {
        const next = atLineStart(buf, pos, consumed + pos);
        if (next > pos) {
          // cached LF/CR positions before `next` are recomputed below; later ones stay right
          pos = next;
          lineOffset = consumed + pos;
          continue;
        }
        if (next === LEAVE_UNREAD) {
          consumed += pos;
          return len - pos;
        }
      }
      // Blank lines (every SSE event ends with one) are seen without a Buffer#indexOf call (its overhead dominates short lines).
      if (nextLF !== -1 && nextLF < pos) {
        const b = buf[pos];
        nextLF = b === 10 ? pos : b === 13 && buf[pos + 1] === 10 ? pos + 1 : b === 0x65 ? nearLF(buf, pos, len) : buf.indexOf(10, pos);
      }
      if (nextCR !== -1 && nextCR < pos) nextCR = buf[pos] === 13 ? pos : buf.indexOf(13, pos);
      let eol: number;
      let next: number;
      if (nextCR !== -1 && (nextLF === -1 || nextCR < nextLF)) {
        eol = nextCR;
        if (eol + 1 < len) next = buf[eol + 1] === 10 ? eol + 2 : eol + 1;
        else {
          next = len;
          skipLF = true;
        }
      } else if (nextLF !== -1) {
        eol = nextLF;
        next = eol + 1;
      } else break;
      if (fragmentBytes === 0) {
        if (eol - pos > maxLineBytes) throw new FrameTooLargeError(maxLineBytes, lineOffset, frameOf());
        onLine(buf, pos, eol, lineOffset);
      } else {
        if (fragmentBytes + eol - pos > maxLineBytes) throw new FrameTooLargeError(maxLineBytes, lineOffset, frameOf());
        const line = joinFragments(fragments, buf.subarray(pos, eol));
        fragmentBytes = 0;
        onLine(line, 0, line.length, lineOffset);
      }
      pos = next;
      lineOffset = consumed + pos;
    }
    if (pos < len) {
      fragmentBytes += len - pos;
      if (fragmentBytes > maxLineBytes) throw new FrameTooLargeError(maxLineBytes, lineOffset, frameOf());
      // copy: the caller may reuse its chunk buffer
      fragments.push(copy(buf.subarray(pos)));
    }
    consumed += len;
    return 0;
  }

  const bom = startOffset === 0 ? createBomStripper() : null;
  return {
    push(buf) {
      const n = buf.length;
      if (bom !== null) {
        buf = bom.take(buf);
        if (bom.stripped > 0 && consumed === 0) consumed = bom.stripped;
      }
      if (buf.length === 0) return 0;
      const unread = scan(buf);
      // (a BOM still being decided holds back at most two bytes, never with an event read)
      return unread > n ? n : unread;
    },
    end(flush) {
      const rest = bom?.flush();
      if (rest !== undefined && rest.length > 0) scan(rest);
      if (fragmentBytes > 0) {
        const line = joinFragments(fragments, EMPTY_BUFFER);
        fragmentBytes = 0;
        if (flush) onLine(line, 0, line.length, lineOffset);
      }
    },
  };
}
