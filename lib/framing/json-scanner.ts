/**
 * A string-skipping depth scanner over bytes that cuts a stream of JSON text
 * into top-level values without parsing them (the decoder parses each value
 * exactly once). Two modes:
 * - `array`: one (or several back-to-back) top-level JSON arrays, each element
 *   emitted as soon as it closes (Gemini's default streamGenerateContent framing);
 * - `values`: concatenated JSON values separated by any whitespace (NDJSON,
 *   pretty-printed WebSocket message logs, plain JSON error bodies).
 * Strings are skipped with indexOf('"') plus a backslash-parity check, so the
 * cost per byte inside long strings is memchr's, not a JS loop's.
 *
 * Array mode reads a large chunk's valid UTF-8 as text, decoded in one call
 * (as the floor does), and its elements are slices of that string: decoding
 * each element on its own cost more than the decoding itself on two-byte
 * text. Only while the text read is mostly multi-byte: on mostly ASCII text a
 * few characters above U+00FF would make the whole chunk's string two-byte
 * (and every slice and capture of it), where each element decoded on its own
 * stays one-byte unless it holds one. A value that began in an earlier chunk,
 * the bytes of a character cut by the chunk's end, invalid UTF-8 and small
 * chunks go through the bytes.
 *
 * In `values` mode a broken value costs its own line only (NDJSON logs hold
 * one value per line, and one bad line must not swallow the rest): a raw line
 * feed inside a string (never valid JSON) or a `{` at the start of a line
 * inside an open value (pretty-printers indent nested values) ends the value
 * there; its text goes on as a frame the decoder reports as invalid_json.
 */
import { describeByte, FrameTooLargeError, JsonArrayError } from '../errors.js';
import type { Frame } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { byteLength, copy, decodeValid, isUtf8 } from '../bytes/index.js';
import { objectArray } from '../arrays.js';
import { createBomStripper, EMPTY_BUFFER, joinFragments, toBytes, type Chunk } from './bytes.js';
import type { ResolvedFramerOptions } from './options.js';
import { replacedInvalidUtf8, utf8Value } from './utf8.js';
import { isJsonSpace } from './json-text.js';
import { WarmSlot } from '../warm.js';

const enum S {
  /** array mode: before `[` */
  ExpectOpen,
  /** array mode: after `[`, a value or `]` */
  ExpectFirst,
  /** array mode: after `,`, a value */
  ExpectValue,
  /** array mode: after an element, `,` or `]` */
  ExpectSep,
  /** values mode: between values */
  Between,
  /** inside a container value (depth > 0), outside strings */
  InContainer,
  /** inside a string (top-level string value, or inside a container) */
  InString,
  /** inside a top-level scalar (number, literal, or garbage) */
  InScalar,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LF = 0x0a;
const OPEN_BRACE = 0x7b;


/** The text read is multi-byte enough for scanText when UTF-8 bytes exceed UTF-16 units by more than 1 in DENSE. */
const DENSE = 16;

/** Array mode reads at least this many bytes of a chunk as text (smaller: the decoding of a cut element would be wasted too often). */
const TEXT_MIN = 8192;

/** The last scanner of each mode to end (see lib/warm.ts). */
const jsonScannerWarmth = new WarmSlot();

export function createJsonScanner(mode: 'array' | 'values', options: Pick<ResolvedFramerOptions, 'maxFrameBytes' | 'positions'>): Stage<Chunk, Frame> {
  const { maxFrameBytes, positions } = options;
  let state: S = mode === 'array' ? S.ExpectOpen : S.Between;
  let depth = 0;
  let escaped = false; // inside a string, the previous byte was an unescaped backslash
  let consumed = 0;
  let valueStart = -1; // start of the value in the current chunk, or -1 when it began in an earlier chunk
  let valueOffset = 0; // absolute offset of the current value
  const fragments = objectArray<Uint8Array>();
  let fragmentBytes = 0;
  let frameNo = 0;
  const bom = createBomStripper();
  const values = mode === 'values';
  /** values mode: the byte before the current one was a line feed (across chunks too). */
  let afterLf = false;
  /** Bytes of the values decoded in this chunk, and how many more than their UTF-16 units: the next chunk's choice (see the header). */
  let decodedBytes = 0;
  let decodedExtra = 0;
  /** The last chunk's values were mostly multi-byte text. */
  let dense = false;

  /** Ends the value at `end`; `trim`: a broken value, whose line end and trailing blanks are not part of it. */
  function finish(buf: Uint8Array, end: number, emit: Emit<Frame>, trim = false): void {
    const start = valueStart < 0 ? 0 : valueStart;
    if (fragmentBytes + end - start > maxFrameBytes) throw new FrameTooLargeError(maxFrameBytes, valueOffset, frameNo);
    let bytes = buf;
    let from = start;
    let to = end;
    if (fragmentBytes > 0) {
      bytes = joinFragments(fragments, buf.subarray(start, end));
      from = 0;
      to = bytes.length;
    }
    if (trim) while (to > from && isJsonSpace(bytes[to - 1]!)) to--;
    const text = utf8Value(bytes, from, to);
    decodedBytes += to - from;
    decodedExtra += to - from - text.length;
    fragmentBytes = 0;
    const frame: Frame = { event: 'message', data: text, id: '' };
    if (positions) frame.at = { frame: frameNo, offset: valueOffset };
    if (replacedInvalidUtf8(text, bytes, from, to)) frame.invalidUtf8At = valueOffset;
    frameNo++;
    state = mode === 'array' ? S.ExpectSep : S.Between;
    emit(frame);
  }

  function startValue(b: number, pos: number): void {
    valueStart = pos;
    valueOffset = consumed + pos;
    if (b === 0x7b || b === 0x5b) {
      depth = 1;
      state = S.InContainer;
    } else if (b === QUOTE) {
      depth = 0;
      escaped = false;
      state = S.InString;
    } else {
      depth = 0;
      state = S.InScalar;
    }
  }

  function fail(expected: string, buf: Uint8Array | null, pos: number): never {
    throw new JsonArrayError(expected, describeByte(buf === null ? undefined : buf[pos]), consumed + pos, frameNo);
  }

  /** values mode: the open value is broken at `pos` (see the header): it goes on as it is, up to there. */
  function cut(buf: Uint8Array, pos: number, emit: Emit<Frame>): void {
    finish(buf, pos, emit, true);
    afterLf = false;
  }

  /** The container loop of `values` mode (array mode's stays free of its line checks): where scanning goes on. */
  function scanValueContainer(buf: Uint8Array, pos: number, len: number, emit: Emit<Frame>): number {
    for (; pos < len; pos++) {
      const b = buf[pos]!;
      if (afterLf && b === OPEN_BRACE) {
        cut(buf, pos, emit);
        return pos;
      }
      afterLf = b === LF;
      if (b === QUOTE) {
        state = S.InString;
        escaped = false;
        return pos + 1;
      }
      if (b === 0x7b || b === 0x5b) depth++;
      else if (b === 0x7d || b === 0x5d) {
        if (--depth === 0) {
          finish(buf, pos + 1, emit);
          return pos + 1;
        }
      }
    }
    return pos;
  }

  function inValue(): boolean {
    return state === S.InContainer || state === S.InString || state === S.InScalar;
  }

  function scan(buf: Uint8Array, emit: Emit<Frame>): void {
    const len = buf.length;
    let pos = 0;
    valueStart = inValue() ? -1 : 0;
    if (mode === 'array' && dense && len >= TEXT_MIN) {
      if (inValue()) pos = scanBytes(buf, 0, emit, true);
      if (len - pos >= TEXT_MIN && !inValue()) pos = scanText(buf, pos, emit);
    }
    if (pos < len) scanBytes(buf, pos, emit, false);
    if (inValue()) {
      const start = valueStart < 0 ? 0 : valueStart;
      fragmentBytes += len - start;
      if (fragmentBytes > maxFrameBytes) throw new FrameTooLargeError(maxFrameBytes, valueOffset, frameNo);
      fragments.push(copy(buf.subarray(start)));
    }
    consumed += len;
    if (decodedBytes > 0) dense = decodedExtra * DENSE > decodedBytes;
    decodedBytes = decodedExtra = 0;
  }

  /**
   * The scanning loop over buf from `pos`; `between`: return at the first
   * position between two values (where scanText may take over), else at the end.
   */
  function scanBytes(buf: Uint8Array, pos: number, emit: Emit<Frame>, between: boolean): number {
    const len = buf.length;
    /** values mode: the first line feed at or after `pos` in this chunk (len: none), found once per line. */
    let nextLf = -1;
    while (pos < len) {
      if (between && state === S.ExpectSep) return pos;
      switch (state) {
        case S.InString: {
          if (escaped) {
            escaped = false;
            pos++;
            continue;
          }
          const q = buf.indexOf(QUOTE, pos);
          if (values) {
            if (nextLf < pos) {
              nextLf = buf.indexOf(LF, pos);
              if (nextLf === -1) nextLf = len;
            }
            if (nextLf < len && (q === -1 || nextLf < q)) {
              cut(buf, nextLf, emit);
              pos = nextLf;
              continue;
            }
          }
          if (q === -1) {
            escaped = trailingBackslashes(buf, pos, len) % 2 === 1;
            pos = len;
            continue;
          }
          if (trailingBackslashes(buf, pos, q) % 2 === 1) {
            pos = q + 1;
            continue;
          }
          pos = q + 1;
          if (depth === 0) finish(buf, pos, emit);
          else state = S.InContainer;
          continue;
        }
        case S.InContainer: {
          if (values) {
            pos = scanValueContainer(buf, pos, len, emit);
            continue;
          }
          for (; pos < len; pos++) {
            const b = buf[pos]!;
            if (b === QUOTE) {
              state = S.InString;
              escaped = false;
              pos++;
              break;
            }
            if (b === 0x7b || b === 0x5b) depth++;
            else if (b === 0x7d || b === 0x5d) {
              if (--depth === 0) {
                pos++;
                finish(buf, pos, emit);
                break;
              }
            }
          }
          continue;
        }
        case S.InScalar: {
          const b = buf[pos]!;
          if (isJsonSpace(b) || b === 0x2c || b === 0x5d || b === 0x7b || b === 0x5b || b === QUOTE) {
            finish(buf, pos, emit);
            continue; // the delimiter is handled by the next state
          }
          pos++;
          continue;
        }
        default: {
          const b = buf[pos]!;
          if (isJsonSpace(b)) {
            pos++;
            continue;
          }
          switch (state) {
            case S.Between:
              startValue(b, pos);
              pos++;
              continue;
            case S.ExpectOpen:
              if (b !== 0x5b) fail("'['", buf, pos);
              state = S.ExpectFirst;
              pos++;
              continue;
            case S.ExpectFirst:
              if (b === 0x5d) {
                state = S.ExpectOpen;
                pos++;
                continue;
              }
              if (b === 0x2c) fail("a value or ']'", buf, pos);
              startValue(b, pos);
              pos++;
              continue;
            case S.ExpectValue:
              if (b === 0x5d || b === 0x2c) fail('a value', buf, pos);
              startValue(b, pos);
              pos++;
              continue;
            case S.ExpectSep:
              if (b === 0x2c) state = S.ExpectValue;
              else if (b === 0x5d) state = S.ExpectOpen; // a log may hold several arrays back to back
              else fail("',' or ']'", buf, pos);
              pos++;
              continue;
            default:
              throw new Error('unreachable');
          }
        }
      }
    }
    return pos;
  }

  // scanText's string, where it came from in the chunk, and one known pair of character and byte positions in it
  let text = '';
  let textFrom = 0;
  let knownChar = 0;
  let knownByte = 0;

  /** The position in the chunk of character `c` of `text` (a native count from the nearest known position: no byte loop). */
  function byteAt(c: number): number {
    if (c < knownChar) {
      knownChar = 0;
      knownByte = textFrom;
    }
    if (c > knownChar) knownByte += byteLength(text.slice(knownChar, c));
    knownChar = c;
    return knownByte;
  }

  /**
   * Array mode, between two values at buf[pos]: reads the chunk up to the end
   * of its last whole character as one string. Returns where the bytes take
   * over: that end, or `pos` when that part is not valid UTF-8.
   */
  function scanText(buf: Uint8Array, pos: number, emit: Emit<Frame>): number {
    const end = wholeCharsEnd(buf, pos);
    const bytes = buf.subarray(pos, end);
    if (!isUtf8(bytes)) return pos;
    const s = decodeValid(bytes);
    decodedBytes += end - pos;
    decodedExtra += end - pos - s.length;
    text = s;
    textFrom = knownByte = pos;
    knownChar = 0;
    const n = s.length;
    let i = 0;
    let start = 0;
    while (i < n) {
      switch (state) {
        case S.InString: {
          if (escaped) {
            escaped = false;
            i++;
            continue;
          }
          const q = s.indexOf('"', i);
          if (q === -1) {
            escaped = trailingBackslashesOf(s, i, n) % 2 === 1;
            i = n;
            continue;
          }
          if (trailingBackslashesOf(s, i, q) % 2 === 1) {
            i = q + 1;
            continue;
          }
          i = q + 1;
          if (depth === 0) finishText(start, i, emit);
          else state = S.InContainer;
          continue;
        }
        case S.InContainer: {
          for (; i < n; i++) {
            const c = s.charCodeAt(i);
            if (c === QUOTE) {
              state = S.InString;
              escaped = false;
              i++;
              break;
            }
            if (c === 0x7b || c === 0x5b) depth++;
            else if (c === 0x7d || c === 0x5d) {
              if (--depth === 0) {
                i++;
                finishText(start, i, emit);
                break;
              }
            }
          }
          continue;
        }
        case S.InScalar: {
          const c = s.charCodeAt(i);
          if (isJsonSpace(c) || c === 0x2c || c === 0x5d || c === 0x7b || c === 0x5b || c === QUOTE) {
            finishText(start, i, emit);
            continue;
          }
          i++;
          continue;
        }
        default: {
          const c = s.charCodeAt(i);
          if (isJsonSpace(c)) {
            i++;
            continue;
          }
          switch (state) {
            case S.ExpectOpen:
              if (c !== 0x5b) fail("'['", buf, byteAt(i));
              state = S.ExpectFirst;
              i++;
              continue;
            case S.ExpectFirst:
              if (c === 0x5d) {
                state = S.ExpectOpen;
                i++;
                continue;
              }
              if (c === 0x2c) fail("a value or ']'", buf, byteAt(i));
              startText(c, i);
              start = i++;
              continue;
            case S.ExpectValue:
              if (c === 0x5d || c === 0x2c) fail('a value', buf, byteAt(i));
              startText(c, i);
              start = i++;
              continue;
            case S.ExpectSep:
              if (c === 0x2c) state = S.ExpectValue;
              else if (c === 0x5d) state = S.ExpectOpen;
              else fail("',' or ']'", buf, byteAt(i));
              i++;
              continue;
            default:
              throw new Error('unreachable');
          }
        }
      }
    }
    // a value still open goes on in bytes: from its first byte, as a fragment (see scan)
    if (inValue()) {
      valueStart = byteAt(start);
      valueOffset = consumed + valueStart;
    }
    text = '';
    return end;
  }

  /** startValue for scanText: the value's byte offset is counted only when something reads it. */
  function startText(c: number, i: number): void {
    startValue(c, -1);
    if (positions) valueOffset = consumed + byteAt(i);
  }

  /** finish for scanText: the value is text[start, end). */
  function finishText(start: number, end: number, emit: Emit<Frame>): void {
    // (a UTF-16 unit is at most 3 bytes of UTF-8: the exact count only for a value that may be too large)
    if ((end - start) * 3 > maxFrameBytes && byteLength(text.slice(start, end)) > maxFrameBytes) {
      throw new FrameTooLargeError(maxFrameBytes, consumed + byteAt(start), frameNo);
    }
    const frame: Frame = { event: 'message', data: text.slice(start, end), id: '' };
    if (positions) frame.at = { frame: frameNo, offset: valueOffset };
    frameNo++;
    state = S.ExpectSep;
    emit(frame);
  }

  const stage: Stage<Chunk, Frame> = {
    push(chunk, emit) {
      const buf = bom.take(toBytes(chunk));
      if (bom.stripped > 0 && consumed === 0) consumed = bom.stripped;
      if (buf.length > 0) scan(buf, emit);
    },
    end(emit) {
      const held = bom.flush();
      if (held.length > 0) scan(held, emit);
      if (state === S.InScalar) {
        finish(EMPTY_BUFFER, 0, emit);
      }
      if (state === S.InContainer || state === S.InString) {
        fragments.length = 0;
        throw new JsonArrayError(
          state === S.InString ? 'the end of a string' : `${depth} more closing bracket${depth === 1 ? '' : 's'}`,
          'end of input',
          consumed,
          frameNo,
        );
      }
      if (mode === 'array') {
        if (state === S.ExpectSep) throw new JsonArrayError("',' or ']'", 'end of input', consumed, frameNo);
        if (state === S.ExpectValue || state === S.ExpectFirst) throw new JsonArrayError('a value', 'end of input', consumed, frameNo);
      }
      jsonScannerWarmth.hold(stage, mode);
    },
  };
  return stage;
}

/** The end of buf's last whole UTF-8 character at or after `from` (invalid bytes count as whole: isUtf8 rejects them). */
function wholeCharsEnd(buf: Uint8Array, from: number): number {
  const len = buf.length;
  let i = len;
  while (i > from && len - i < 3 && (buf[i - 1]! & 0xc0) === 0x80) i--;
  if (i === from) return len;
  const lead = buf[i - 1]!;
  if (lead < 0xc0) return len;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return len - (i - 1) < size ? i - 1 : len;
}

/** trailingBackslashes over a string. */
function trailingBackslashesOf(s: string, from: number, end: number): number {
  let n = 0;
  for (let i = end - 1; i >= from && s.charCodeAt(i) === BACKSLASH; i--) n++;
  return n;
}

/** Number of consecutive backslashes ending just before `end`, not looking before `from`. */
function trailingBackslashes(buf: Uint8Array, from: number, end: number): number {
  let n = 0;
  for (let i = end - 1; i >= from && buf[i] === BACKSLASH; i--) n++;
  return n;
}
