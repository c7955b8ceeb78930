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
 * In `values` mode a broken value costs its own line only (NDJSON logs hold
 * one value per line, and one bad line must not swallow the rest): a raw line
 * feed inside a string (never valid JSON) or a `{` at the start of a line
 * inside an open value (pretty-printers indent nested values) ends the value
 * there; its text goes on as a frame the decoder reports as invalid_json.
 */
import { describeByte, FrameTooLargeError, JsonArrayError } from '../errors.js';
import type { Frame } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { copy } from '../bytes/index.js';
import { createBomStripper, EMPTY_BUFFER, joinFragments, toBytes, type Chunk } from './bytes.js';
import type { ResolvedFramerOptions } from './options.js';
import { replacedInvalidUtf8, utf8 } from './utf8.js';

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

function isWs(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

export function createJsonScanner(mode: 'array' | 'values', options: Pick<ResolvedFramerOptions, 'maxFrameBytes' | 'positions'>): Stage<Chunk, Frame> {
  const { maxFrameBytes, positions } = options;
  let state: S = mode === 'array' ? S.ExpectOpen : S.Between;
  let depth = 0;
  let escaped = false; // inside a string, the previous byte was an unescaped backslash
  let consumed = 0;
  let valueStart = -1; // start of the value in the current chunk, or -1 when it began in an earlier chunk
  let valueOffset = 0; // absolute offset of the current value
  const fragments: Uint8Array[] = [];
  let fragmentBytes = 0;
  let frameNo = 0;
  const bom = createBomStripper();
  const values = mode === 'values';
  /** values mode: the byte before the current one was a line feed (across chunks too). */
  let afterLf = false;

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
    if (trim) while (to > from && isWs(bytes[to - 1]!)) to--;
    const text = utf8(bytes, from, to);
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

  function scan(buf: Uint8Array, emit: Emit<Frame>): void {
    const len = buf.length;
    let pos = 0;
    /** values mode: the first line feed at or after `pos` in this chunk (len: none), found once per line. */
    let nextLf = -1;
    valueStart = state === S.InContainer || state === S.InString || state === S.InScalar ? -1 : 0;
    while (pos < len) {
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
          if (isWs(b) || b === 0x2c || b === 0x5d || b === 0x7b || b === 0x5b || b === QUOTE) {
            finish(buf, pos, emit);
            continue; // the delimiter is handled by the next state
          }
          pos++;
          continue;
        }
        default: {
          const b = buf[pos]!;
          if (isWs(b)) {
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
    if (state === S.InContainer || state === S.InString || state === S.InScalar) {
      const start = valueStart < 0 ? 0 : valueStart;
      fragmentBytes += len - start;
      if (fragmentBytes > maxFrameBytes) throw new FrameTooLargeError(maxFrameBytes, valueOffset, frameNo);
      fragments.push(copy(buf.subarray(start)));
    }
    consumed += len;
  }

  return {
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
    },
  };
}

/** Number of consecutive backslashes ending just before `end`, not looking before `from`. */
function trailingBackslashes(buf: Uint8Array, from: number, end: number): number {
  let n = 0;
  for (let i = end - 1; i >= from && buf[i] === BACKSLASH; i--) n++;
  return n;
}
