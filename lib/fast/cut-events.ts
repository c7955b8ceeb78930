/**
 * An SSE event the chunk cuts off, held back for the event templates
 * (event-template.ts): when no template matched at an event's first byte
 * only because the chunk ends first, the framer stops reading there
 * (LEAVE_UNREAD, framing/lines.ts) and those bytes (up to MAX_HELD, while
 * they hold no blank line) are pushed again joined to the next chunk (to its
 * head up to its first blank line when it is large), as one buffer: the same
 * bytes cut elsewhere, which framing does not depend on. Held bytes hold no
 * whole event, so nothing comes out later than it would have.
 */
import type { Frame } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { alloc } from '../bytes/index.js';
import { EMPTY_BUFFER, toBytes, type Chunk } from '../framing/bytes.js';
import { LEAVE_UNREAD } from '../framing/lines.js';
import { EVENT_CUT_CLEAN } from './event-template.js';

/**
 * Most bytes held back for a cut event: a few events' worth (the ones event
 * templates take are 100-600 bytes); a longer one is read line by line.
 */
const MAX_HELD = 4096;

/** Chunks up to this size are joined whole to the held bytes before them. */
const JOIN_WHOLE = 32 * 1024;

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

/** Holds back the cut events of one stream, between its chunks and its framer. */
export class CutEvents {
  private readonly maxHeld: number;
  /**
   * The held bytes, at the start of `scratch` (the caller may reuse its
   * chunks, so they are copied), and the line-end state after their last
   * byte. The scratch buffer is this holder's own, grown on demand and
   * reused by every join: a fresh Uint8Array per hold and per join cost a
   * pool allocation each on small chunks.
   */
  private scratch: Uint8Array | null = null;
  private heldBytes = 0;
  private heldState = IN_LINE;
  /** While held bytes are read again at the start of a buffer: how many, and the line-end state after them. */
  private checked = 0;
  private checkedState = IN_LINE;
  /** False while held bytes are read alone (the end of input, a large chunk's head without a blank line). */
  private holding = true;
  /**
   * The bytes of the push under way: only an event in them is held (the auto
   * framer may push copies of its own, the bytes it held before it picked a
   * framing, and a later one after them).
   */
  private pushed: Uint8Array | null = null;
  /** Where the framer stopped reading the bytes of this push, or -1. */
  private stopPos = -1;

  /** `maxFrameBytes`: held bytes stay under the line limit, so holding them cannot delay a FrameTooLargeError. */
  constructor(maxFrameBytes: number) {
    this.maxHeld = Math.min(MAX_HELD, maxFrameBytes);
  }

  /**
   * The event templates' answer EVENT_CUT or EVENT_CUT_CLEAN at buf[pos] as
   * the line splitter's: LEAVE_UNREAD when the bytes from there are held,
   * else -1 (the framer reads them line by line).
   */
  cut(buf: Uint8Array, pos: number, answer: number): number {
    const len = buf.length;
    if (!this.holding || buf !== this.pushed || len - pos > this.maxHeld) return -1;
    // (bytes held before and read again at buf[0] were checked then)
    const state =
      answer === EVENT_CUT_CLEAN
        ? -1 - endState(buf, len)
        : pos === 0 && this.checked > 0
          ? blankLineEnd(buf, this.checked, len, this.checkedState)
          : blankLineEnd(buf, pos, len, AFTER_LF);
    if (state >= 0) return -1;
    this.heldState = -1 - state;
    this.stopPos = pos;
    return LEAVE_UNREAD;
  }

  /** `framer` with the held bytes pushed again before each chunk. */
  wrap(framer: Stage<Chunk, Frame>): Stage<Chunk, Frame> {
    return {
      push: (chunk, emit) => {
        // (bytes, so that the framer reads this very object: see cut)
        const buf = toBytes(chunk);
        if (this.heldBytes > 0) this.resume(framer, buf, emit);
        else this.read(framer, buf, false, emit);
      },
      end: (emit) => {
        if (this.heldBytes > 0) {
          // end of input: the held bytes are read as they are
          this.holding = false;
          try {
            this.read(framer, this.takeHeld(EMPTY_BUFFER), true, emit);
          } finally {
            this.holding = true;
          }
        }
        framer.end(emit);
      },
    };
  }

  /** One push to the framer (`own`: buf is a view of the scratch buffer from its first byte); keeps what it left unread. */
  private read(framer: Stage<Chunk, Frame>, buf: Uint8Array, own: boolean, emit: Emit<Frame>): void {
    this.pushed = buf;
    try {
      framer.push(buf, emit);
    } finally {
      this.pushed = null;
    }
    const pos = this.stopPos;
    if (pos < 0) return;
    this.stopPos = -1;
    if (own) this.scratch!.copyWithin(0, pos, buf.length);
    else this.room(buf.length - pos, 0).set(pos === 0 ? buf : buf.subarray(pos));
    this.heldBytes = buf.length - pos;
  }

  /**
   * Held bytes and `buf`, read as one buffer: all of buf when it is small
   * (one copy of a chunk costs less than reading any part of it twice), else
   * its head up to its first blank line, then the rest of it. When a large
   * buf has no blank line soon enough, the held bytes are read alone first,
   * as they would have been.
   */
  private resume(framer: Stage<Chunk, Frame>, buf: Uint8Array, emit: Emit<Frame>): void {
    const len = buf.length;
    let head = len;
    if (len > JOIN_WHOLE) {
      const end = blankLineEnd(buf, 0, this.maxHeld - this.heldBytes, this.heldState);
      head = end < 0 ? 0 : end;
    }
    this.checked = this.heldBytes;
    this.checkedState = this.heldState;
    this.holding = head === len;
    try {
      this.read(framer, this.takeHeld(head === len ? buf : buf.subarray(0, head)), true, emit);
    } finally {
      this.checked = 0;
      this.holding = true;
    }
    if (head < len) this.read(framer, buf.subarray(head), false, emit);
  }

  /** A scratch buffer of at least `size` bytes whose first `keep` bytes are the old one's. */
  private room(size: number, keep: number): Uint8Array {
    const s = this.scratch;
    if (s !== null && s.length >= size) return s;
    // doubling up to the most a join needs (held bytes and a whole chunk)
    const grown = alloc(Math.max(size, Math.min(Math.max(2 * (s?.length ?? 0), MIN_SCRATCH), MAX_HELD + JOIN_WHOLE)));
    if (s !== null && keep > 0) grown.set(s.subarray(0, keep));
    this.scratch = grown;
    return grown;
  }

  /**
   * The held bytes joined with `tail`, no longer held. A new view of the
   * scratch buffer each time: the event templates and the SSE framer tell
   * chunks apart by their Buffer object.
   */
  private takeHeld(tail: Uint8Array): Uint8Array {
    const n = this.heldBytes;
    this.heldBytes = 0;
    const into = this.room(n + tail.length, n);
    // (TypedArray#set: Buffer#copy's JavaScript argument handling cost more than the copy of a small chunk)
    into.set(tail, n);
    return into.subarray(0, n + tail.length);
  }
}
