/**
 * Byte-level line splitter shared by the SSE and NDJSON framers.
 * Lines end in CRLF, LF or CR; a CR at the end of one chunk and an LF at the
 * start of the next are one line end. Splitting happens on bytes (CR and LF
 * never occur inside a multi-byte UTF-8 sequence), so code points split across
 * chunks need no special care, and byte offsets come for free.
 * A line that spans chunks is kept as fragments and joined once (linear time).
 *
 * An event the line-start hook could take whole but the chunk cuts off is
 * held back instead (up to MAX_HELD bytes, while they hold no blank line) and
 * read joined to the next chunk (to its head up to its first blank line when
 * it is large), as one buffer: the same bytes cut elsewhere, which framing
 * does not depend on, and held bytes hold no whole event, so nothing comes
 * out later than it would have.
 */
import { FrameTooLargeError } from '../errors.js';
import { alloc, copy } from '../bytes/index.js';
import { createBomStripper, EMPTY_BUFFER, joinFragments } from './bytes.js';

/** Called for each complete line: the bytes are buf[start, end); `offset` is the line's absolute byte offset. */
export type LineHandler = (buf: Uint8Array, start: number, end: number, offset: number) => void;

export interface LineSplitter {
  push(buf: Uint8Array): void;
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
 * line: returns where reading goes on when it consumed whole lines itself, or
 * -1, or EVENT_CUT when the event there may be one it takes whole but `buf`
 * ends before it does (see the SSE framer's event hook).
 */
export type LineStartHook = (buf: Uint8Array, pos: number, offset: number) => number;

/** A line-start hook's answer: the event may be one it takes whole, but the buffer ends first. */
export const EVENT_CUT = -2;
/**
 * The same, and the hook has seen that the bytes from there to the buffer's
 * end hold no blank line (so the splitter need not look: a loop over the held
 * bytes per chunk shows at small chunks).
 */
export const EVENT_CUT_CLEAN = -3;

/**
 * Most bytes held back for a cut event: a few events' worth (the ones event
 * templates take are 100-600 bytes); a longer one is read line by line.
 */
const MAX_HELD = 4096;

/** Chunks up to this size are joined whole to the held bytes before them. */
const JOIN_WHOLE = 64 * 1024;

/** The scratch buffer's first size (a few small chunks and held bytes). */
const MIN_SCRATCH = 8 * 1024;

/** Line-end states between bytes, for finding a blank line across chunks. */
const IN_LINE = 0;
const AFTER_LF = 1; // also at a line start
const AFTER_CR = 2; // an LF next is the same line end

/**
 * Where the first blank line in buf[from, to) ends (past an LF that follows
 * its CR), given the line-end state before `from`; else -1 - the state at `to`.
 */
function blankLineEnd(buf: Uint8Array, from: number, to: number, state: number): number {
  for (let i = from; i < to; i++) {
    const b = buf[i];
    if (b === 10) {
      if (state === AFTER_LF) return i + 1;
      state = AFTER_LF;
    } else if (b === 13) {
      if (state !== IN_LINE) return i + 1 < to && buf[i + 1] === 10 ? i + 2 : i + 1;
      state = AFTER_CR;
    } else state = IN_LINE;
  }
  return -1 - state;
}

/** The line-end state after buf[0, len) when it holds no blank line: its last byte tells. */
function endState(buf: Uint8Array, len: number): number {
  const b = buf[len - 1];
  return b === 10 ? AFTER_LF : b === 13 ? AFTER_CR : IN_LINE;
}

/** `frameOf` names the frame an overlong line belongs to, for the error. */
export function createLineSplitter(
  maxLineBytes: number,
  onLine: LineHandler,
  frameOf: () => number,
  atLineStart?: LineStartHook,
): LineSplitter {
  const fragments: Uint8Array[] = [];
  let fragmentBytes = 0;
  let consumed = 0; // bytes before the current chunk
  let lineOffset = 0; // offset where the pending line began
  let skipLF = false;
  /**
   * A cut event held back, at the start of `scratch` (the caller may reuse
   * its chunks, so the bytes are copied), and the line-end state after its
   * last byte. The scratch buffer is the splitter's own, grown on demand and
   * reused by every join: a fresh Uint8Array per hold and per join cost a pool
   * allocation each on small chunks (a new 8 KiB pool every few chunks).
   */
  let scratch: Uint8Array | null = null;
  let heldBytes = 0;
  let heldState = IN_LINE;
  const maxHeld = Math.min(MAX_HELD, maxLineBytes);
  /** While held bytes are read again at the start of a buffer: how many, and the line-end state after them. */
  let checked = 0;
  let checkedState = IN_LINE;

  /**
   * Reads buf[from, len): `consumed` is the offset of buf[0]; `hold` false
   * while reading held bytes alone; `own` when buf is wirefold's (no copy to hold it).
   */
  function scan(buf: Uint8Array, from: number, hold: boolean, own: boolean): void {
    const len = buf.length;
    let pos = from;
    if (skipLF && pos < len) {
      skipLF = false;
      if (buf[pos] === 10) pos++;
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
        // (bytes under the line limit: holding them back cannot delay a FrameTooLargeError)
        if ((next === EVENT_CUT || next === EVENT_CUT_CLEAN) && hold && len - pos <= maxHeld) {
          // (bytes held before and read again at buf[0] were checked then)
          const state =
            next === EVENT_CUT_CLEAN
              ? -1 - endState(buf, len)
              : pos === 0 && checked > 0
                ? blankLineEnd(buf, checked, len, checkedState)
                : blankLineEnd(buf, pos, len, AFTER_LF);
          if (state < 0) {
            keepHeld(buf, pos, own);
            heldBytes = len - pos;
            heldState = -1 - state;
            consumed += len;
            return;
          }
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
  }

  /** A scratch buffer of at least `size` bytes whose first `keep` bytes are the old one's. */
  function room(size: number, keep: number): Uint8Array {
    if (scratch !== null && scratch.length >= size) return scratch;
    // doubling up to the most a join needs (held bytes and a whole chunk)
    const grown = alloc(Math.max(size, Math.min(Math.max(2 * (scratch?.length ?? 0), MIN_SCRATCH), MAX_HELD + JOIN_WHOLE)));
    if (scratch !== null && keep > 0) grown.set(scratch.subarray(0, keep));
    scratch = grown;
    return grown;
  }

  /** Holds buf[pos, buf.length) at the start of the scratch buffer (`own`: buf is a view of it from its first byte). */
  function keepHeld(buf: Uint8Array, pos: number, own: boolean): void {
    if (own) scratch!.copyWithin(0, pos, buf.length);
    else room(buf.length - pos, 0).set(pos === 0 ? buf : buf.subarray(pos));
  }

  /**
   * The held bytes joined with `tail`, no longer held: `consumed` goes back
   * to their offset. A new view of the scratch buffer each time: the event
   * templates and the SSE framer tell chunks apart by their Buffer object.
   */
  function takeHeld(tail: Uint8Array): Uint8Array {
    consumed -= heldBytes;
    const n = heldBytes;
    heldBytes = 0;
    const into = room(n + tail.length, n);
    // (TypedArray#set: Buffer#copy's JavaScript argument handling cost more than the copy of a small chunk)
    into.set(tail, n);
    return into.subarray(0, n + tail.length);
  }

  /**
   * Held bytes and `buf`, read as one buffer: all of buf when it is small
   * (one copy of a chunk costs less than reading any part of it twice), else
   * its head up to its first blank line, then the rest of it. When a large
   * buf has no blank line soon enough, the held bytes are read alone first,
   * as they would have been.
   */
  function resume(buf: Uint8Array): void {
    const len = buf.length;
    let head = len;
    if (len > JOIN_WHOLE) {
      const end = blankLineEnd(buf, 0, maxHeld - heldBytes, heldState);
      head = end < 0 ? 0 : end;
    }
    checked = heldBytes;
    checkedState = heldState;
    const joined = takeHeld(head === len ? buf : buf.subarray(0, head));
    try {
      scan(joined, 0, head === len, true);
    } finally {
      checked = 0;
    }
    if (head === len) return;
    consumed -= head;
    scan(buf, head, true, false);
  }

  /** End of input with bytes held: they are read as they are. */
  function release(): void {
    scan(takeHeld(EMPTY_BUFFER), 0, false, true);
  }

  const bom = createBomStripper();
  return {
    push(buf) {
      buf = bom.take(buf);
      if (bom.stripped > 0 && consumed === 0) consumed = bom.stripped;
      if (buf.length === 0) return;
      if (heldBytes > 0) resume(buf);
      else scan(buf, 0, true, false);
    },
    end(flush) {
      if (heldBytes > 0) release();
      const rest = bom.flush();
      if (rest.length > 0) scan(rest, 0, true, false);
      if (fragmentBytes > 0) {
        const line = joinFragments(fragments, EMPTY_BUFFER);
        fragmentBytes = 0;
        if (flush) onLine(line, 0, line.length, lineOffset);
      }
    },
  };
}
