/**
 * Server-sent events framing, following WHATWG HTML "Interpreting an event
 * stream" (§9.2.6): bytes → { event, data, id, retry? } frames. The comments
 * in createSseFramer's line handler and dispatch name the spec's steps. Two
 * departures, both options: an unterminated last event is dispatched at the
 * end (`flushIncomplete`, the spec discards it), and an event whose data
 * passes `maxFrameBytes` is an error. (The decoder's leading BOM is stripped
 * by lines.ts.) The fused stage's hooks (an event taken whole from the bytes,
 * the plain block's layout) ride along without changing a frame.
 */
import { FrameTooLargeError } from '../errors.js';
import type { ErrorEvent, Frame, Position } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { toBytes, type Chunk } from './bytes.js';
import { createLineSplitter } from './lines.js';
import { latin1, replacedInvalidUtf8, utf8 } from './utf8.js';
import { resolveFramerOptions, type FramerOptions, type ResolvedFramerOptions, type SseOnlyOptions } from './options.js';
import { WarmSlot } from '../warm.js';

/**
 * Internal (the fused events stage, pipeline/events-stage.ts): takes whole
 * events straight from the bytes, and learns from the blocks the framer read.
 */
export interface SseEventHook {
  /**
   * At the first byte of an event (nothing of it read yet): the event's end
   * when the hook handled it whole, LEAVE_UNREAD (framing/lines.ts) when the
   * framer is to stop reading `buf` there (the hook's owner pushes those bytes
   * again later), else -1. `id` is the last event ID in force; with positions
   * on, the event would be frame `frame` at byte `offset` of the stream (else
   * `offset` is -1).
   */
  tryEvent(buf: Uint8Array, pos: number, limit: number, id: string, frame: number, offset: number): number;
  /**
   * Set while a frame is emitted: its block buf[start, end) (blank line
   * included) with the data at [dataStart, dataEnd), when the block was plain:
   * in one buffer, one `data:` line, no `id:` line (the only field whose
   * effect outlives the event). Otherwise `buf` is null.
   */
  readonly block: { buf: Uint8Array | null; start: number; dataStart: number; dataEnd: number; end: number };
}

/**
 * An SSE input that ended without a single event but held lines that are not
 * SSE fields: most often an HTML or plain-text error page from a proxy. The
 * WHATWG parser ignores such lines, so this is the only trace they leave.
 */
export class Unframed {
  constructor(
    /** Bytes of input read. */
    readonly bytes: number,
    /** Byte offset of the first such line. */
    readonly offset: number,
    /** Its first bytes (up to 80), decoded. */
    readonly line: string,
    /** `{frame: 0, offset}` with positions on. */
    readonly at: Position | undefined,
  ) {}

  get message(): string {
    return `no stream event in ${this.bytes} bytes of input: the line at byte ${this.offset} is not an SSE field (${JSON.stringify(this.line)})`;
  }

  /** The terminal `not_a_stream` error event that reports it (the line in `raw`). */
  errorEvent(): ErrorEvent {
    const ev: ErrorEvent = { type: 'error', code: 'not_a_stream', message: this.message, terminal: true, raw: this.line };
    if (this.at !== undefined) ev.at = this.at;
    return ev;
  }
}

/** Most bytes of the first ignored line kept for the report. */
const UNFRAMED_EXCERPT = 80;

/** Hooks the fused stage gives the SSE framer (its own parameter, never part of the options). */
export interface SseHooks {
  eventHook?: SseEventHook;
  /** Called at end of input when no event was dispatched but lines that are not SSE fields were read. */
  onUnframed?: (report: Unframed) => void;
  /** The input is read from the middle of a larger one, at an event's start: its byte offset there, and the number of the next frame. */
  start?: { offset: number; frame: number };
}

export interface SseFramerOptions extends FramerOptions, SseOnlyOptions {}

const COLON = 0x3a;
const SPACE = 0x20;

export function createSseFramer(options: SseFramerOptions = {}): Stage<Chunk, Frame> {
  return makeSseFramer(resolveFramerOptions(options));
}

/** The last SSE framer to end, with its line splitter (see lib/warm.ts). */
const sseWarmth = new WarmSlot();
/** What an ended framer is left holding in place of its consumer. */
const ENDED: Emit<Frame> = () => {};

/** The SSE framer from options already resolved, with the fused stage's hooks. */
export function makeSseFramer(options: ResolvedFramerOptions, hooks: SseHooks = {}): Stage<Chunk, Frame> {
  const { maxFrameBytes, positions, flushIncomplete } = options;
  // (let: an ended framer lets go of the stage around it, see end)
  let hook = hooks.eventHook;
  const block = hook?.block;
  let onUnframed = hooks.onUnframed;
  /** Bytes read, and the first line that is not an SSE field while no event has been dispatched yet (-1: none). */
  let bytesIn = hooks.start?.offset ?? 0;
  let ignoredAt = -1;
  let ignoredLine = '';

  let emit: Emit<Frame> = () => {};
  let eventType = '';
  let data = '';
  let dataParts: string[] | null = null; // only for multi-line data
  let hasData = false;
  let dataBytes = 0;
  let lastEventId = '';
  let retry = -1;
  let blockOffset = -1;
  let badUtf8 = false;
  let frameNo = hooks.start?.frame ?? 0;
  /** The current block's layout, for the hook (see SseEventHook.block). */
  let plain = false;
  let blockBuf: Uint8Array | null = null;
  let blockStart = 0;
  let dataStart = 0;
  let dataEnd = 0;

  /** "Dispatch the event", at a blank line. */
  function dispatch(): void {
    // "If the data buffer is an empty string, set the data buffer and the event type buffer to the
    // empty string and return" (a `data:` line, even empty, makes it non-empty: hasData); the data
    // lines are joined with LF, which is the spec's buffer without its last LF.
    if (hasData) {
      const frame: Frame = {
        // "If the event type buffer has a value other than the empty string", the event's type; else `message`
        event: eventType === '' ? 'message' : eventType,
        data: dataParts === null ? data : dataParts.join('\n'),
        id: lastEventId, // "Set the last event ID string of the event source to the value of the last event ID buffer"
      };
      if (retry >= 0) frame.retry = retry;
      if (positions) frame.at = { frame: frameNo, offset: blockOffset };
      if (badUtf8) frame.invalidUtf8At = blockOffset;
      frameNo++;
      emit(frame);
    }
    // "Set the data buffer and the event type buffer to the empty string" (the last event ID stays)
    badUtf8 = false;
    eventType = '';
    data = '';
    dataParts = null;
    hasData = false;
    dataBytes = 0;
    retry = -1;
    blockOffset = -1;
  }

  /** One line, its line end removed (lines.ts: "CRLF, a single LF, or a single CR"). */
  function onLine(buf: Uint8Array, start: number, end: number, offset: number): void {
    // "If the line is empty (a blank line): dispatch the event"
    if (start === end) {
      if (block !== undefined && plain && hasData && buf === blockBuf) blankLine(block, buf, end);
      dispatch();
      if (block !== undefined) block.buf = null;
      return;
    }
    if (blockOffset < 0) {
      blockOffset = offset;
      if (block !== undefined) {
        plain = true;
        blockBuf = buf;
        blockStart = start;
      }
    } else if (buf !== blockBuf) plain = false;
    const b0 = buf[start];
    if (b0 === COLON) return; // "If the line starts with a U+003A COLON character (:): ignore the line"
    // Fast path for the overwhelmingly common `data:` line.
    if (b0 === 0x64 && buf[start + 1] === 0x61 && buf[start + 2] === 0x74 && buf[start + 3] === 0x61 && buf[start + 4] === COLON) {
      let v = start + 5;
      if (buf[v] === SPACE && v < end) v++;
      if (hasData) plain = false;
      dataStart = v;
      dataEnd = end;
      appendData(buf, v, end);
      return;
    }
    // "If the line contains a U+003A COLON character": the field is the characters before the first
    // colon, the value those after it, one leading U+0020 SPACE removed; "otherwise" the whole line
    // is the field and the value is empty
    let colon = start;
    while (colon < end && buf[colon] !== COLON) colon++;
    let v = colon;
    if (colon < end) {
      v = colon + 1;
      if (v < end && buf[v] === SPACE) v++;
    }
    // "Process the field": `data` appends the value to the data buffer, `event` sets the event type
    // buffer, `id` sets the last event ID buffer unless the value holds U+0000 NULL, `retry` takes
    // a value of ASCII digits only; "otherwise, the field is ignored"
    const nameLen = colon - start;
    if (nameLen === 4 && isName(buf, start, 'data')) {
      plain = false; // `data` without a colon, or another spelling: rare, not worth a template
      appendData(buf, v, end);
    } else if (nameLen === 5 && isName(buf, start, 'event')) eventType = eventName(buf, v, end);
    else if (nameLen === 2 && isName(buf, start, 'id')) {
      plain = false;
      const id = utf8(buf, v, end);
      if (!id.includes('\0')) lastEventId = id;
    } else if (nameLen === 5 && isName(buf, start, 'retry')) {
      if (v < end && allDigits(buf, v, end)) retry = Number(latin1(buf, v, end));
    } else if (ignoredAt < 0 && frameNo === 0) {
      // any other field is ignored; the first one before any event is kept for onUnframed
      ignoredAt = offset;
      ignoredLine = utf8(buf, start, Math.min(end, start + UNFRAMED_EXCERPT));
    }
  }

  /** Records the plain block that the blank line at buf[end] closes (its terminator must be whole in `buf`). */
  function blankLine(b: NonNullable<typeof block>, buf: Uint8Array, end: number): void {
    const c = buf[end];
    let after: number;
    if (c === 10) after = end + 1;
    else if (c === 13 && end + 1 < buf.length) after = buf[end + 1] === 10 ? end + 2 : end + 1;
    else return; // a CR at the buffer's end: an LF may follow in the next chunk
    b.buf = buf;
    b.start = blockStart;
    b.dataStart = dataStart;
    b.dataEnd = dataEnd;
    b.end = after;
  }

  const tryEvent =
    hook === undefined
      ? undefined
      : (buf: Uint8Array, pos: number, offset: number): number => {
          if (blockOffset >= 0) return -1; // inside an event
          // nothing of the event read yet, so its block starts here
          const next = hook!.tryEvent(buf, pos, maxFrameBytes, lastEventId, frameNo, positions ? offset : -1);
          if (next > pos) frameNo++;
          return next;
        };

  /** The last ASCII event name decoded: streams repeat a handful of names, so most lines reuse it without decoding. */
  let lastName = '';

  function eventName(buf: Uint8Array, start: number, end: number): string {
    const n = end - start;
    const last = lastName;
    if (n === last.length) {
      let i = 0;
      while (i < n && buf[start + i] === last.charCodeAt(i)) i++;
      if (i === n) return last;
    }
    const name = utf8(buf, start, end);
    if (!badUtf8 && replacedInvalidUtf8(name, buf, start, end)) badUtf8 = true;
    if (name.length === n && n <= 64 && isAscii(name)) lastName = name;
    return name;
  }

  function appendData(buf: Uint8Array, start: number, end: number): void {
    dataBytes += end - start;
    if (dataBytes > maxFrameBytes) throw new FrameTooLargeError(maxFrameBytes, blockOffset, frameNo);
    const value = utf8(buf, start, end);
    if (!badUtf8 && replacedInvalidUtf8(value, buf, start, end)) badUtf8 = true;
    if (!hasData) {
      data = value;
      hasData = true;
    } else if (dataParts === null) dataParts = [data, value];
    else dataParts.push(value);
  }

  const lines = createLineSplitter(maxFrameBytes, onLine, () => frameNo, tryEvent, hooks.start?.offset ?? 0);

  const stage: Stage<Chunk, Frame> = {
    push(chunk, out) {
      emit = out;
      const buf = toBytes(chunk);
      bytesIn += buf.length - lines.push(buf);
    },
    end(out) {
      emit = out;
      lines.end(flushIncomplete);
      if (flushIncomplete) dispatch();
      if (frameNo === 0 && ignoredAt >= 0 && onUnframed !== undefined) {
        onUnframed(new Unframed(bytesIn, ignoredAt, ignoredLine, positions ? { frame: 0, offset: ignoredAt } : undefined));
      }
      // kept warm, it must not keep its consumer, the stage around it nor the input
      emit = ENDED;
      hook = onUnframed = undefined;
      blockBuf = null;
      data = ignoredLine = '';
      dataParts = null;
      sseWarmth.hold(stage);
    },
  };
  return stage;
}

function isName(buf: Uint8Array, start: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (buf[start + i] !== name.charCodeAt(i)) return false;
  return true;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

function allDigits(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}
