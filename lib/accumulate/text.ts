/**
 * Text, refusal and reasoning per content block. Deltas are kept as arrays of
 * parts (long deltas of two-byte text: as UTF-16 code units in a buffer;
 * deltas taken as wire bytes: as UTF-8 in a buffer) and joined only when
 * read, so accumulation is linear in the text size.
 */
import { alloc, byteLength, decodeValid, units as nativeUnits, writeLatin1, writeUtf8 } from '../bytes/index.js';
import { hexDigit } from '../framing/json-text.js';
import { optionsObject } from '../options.js';
import type { Emit, Stage } from '../stage.js';
import type { UnifiedEvent } from '../events.js';
import type { TextAccumulatorOptions } from './types.js';
import { BlockCounter, ByteMeter, DEFAULT_MAX_BLOCKS, DEFAULT_MAX_TEXT_BYTES, limitOption, type Utf8Source } from './limits.js';
import { BEGIN, RESTART, ResponseTracker } from './response.js';

export type TextBlockType = 'text' | 'refusal' | 'reasoning';

/** Deltas joined at a time (see TextBlock.append). */
const GROUP = 256;
/**
 * Characters a group of long deltas is joined at: a string of 70,000 or more
 * two-byte characters is over V8's 128 KiB regular object size, so it lands in
 * the large-object space, which the young-generation collector never copies.
 */
const LARGE = 70_000;
/**
 * Average characters per delta from which a block whose text is two-byte
 * keeps it as UTF-16 code units in a buffer of its own (see TextBlock.append).
 */
const LONG_DELTA = 64;
/** A surrogate not in a pair (in `u` mode a pair is one code point). */
const LONE_SURROGATE = /\p{Surrogate}/u;
/** Most characters of string deltas a block moves into its wire-byte buffer (see TextBlock.absorbParts). */
const ABSORB_MAX = 1 << 16;
/** Most bytes the UTF-16 buffer grows by at a time. */
const MAX_GROWTH = 64 << 20;
/** Bytes between two escapes from which writeRaw moves them with copyWithin (a native call), not a loop. */
const SHORT_RUN = 48;
/** A character outside Latin-1: the joined text is a two-byte string (on a one-byte string the test fails at once). */
const TWO_BYTE = /[^\x00-\xff]/;

/**
 * The largest buffer a block let go of once its text was read (see
 * release), taken by the next block that grows past SPARE_MIN bytes: one long
 * response after another then writes into pages it already has, where a
 * fresh buffer's pages are each faulted in again.
 */
let spare: Uint8Array | null = null;
const SPARE_MIN = 1 << 16;
/** Most bytes a spare buffer holds on to between responses. */
const SPARE_MAX = 4 << 20;

/**
 * A buffer of at least `need` bytes holding buf[0, used): buf itself, or one
 * grown fourfold (see TextBlock.write), or the spare when it is large enough;
 * a first one starts small (short responses in a log: one per text block).
 */
function room(buf: Uint8Array | null, used: number, need: number): Uint8Array {
  if (buf === null) return alloc(Math.max(1024, 4 * need), true);
  if (need <= buf.length) return buf;
  const size = Math.max(need, Math.min(4 * buf.length, buf.length + MAX_GROWTH));
  let grown: Uint8Array;
  if (size >= SPARE_MIN && spare !== null && spare.length >= size) {
    grown = spare;
    spare = null;
  } else grown = alloc(size);
  grown.set(buf.subarray(0, used));
  return grown;
}

/** A block's buffer whose contents were read out (copied into a string): kept as the spare if it is the largest. */
function release(buf: Uint8Array): void {
  if (buf.length >= SPARE_MIN && buf.length <= SPARE_MAX && (spare === null || spare.length < buf.length)) spare = buf;
}

/** One block's state. `contentIndex` is -1 when the event carried none. */
export class TextBlock {
  readonly type: TextBlockType;
  readonly choice: number;
  readonly index: number;
  readonly contentIndex: number;
  /** The deltas; the first `grouped` entries are each GROUP deltas joined. */
  parts: string[] = [];
  private grouped = 0;
  /** Characters in the parts after the groups. */
  private pendingChars = 0;
  /** Long deltas of two-byte text: the text so far as UTF-16 code units in units[0, unitBytes), and no parts. */
  private units: Uint8Array | null = null;
  private unitBytes = 0;
  /** Deltas taken as wire bytes (writeRaw): their text as UTF-8 in raw[0, rawBytes), after the parts or units. */
  private raw: Uint8Array | null = null;
  private rawBytes = 0;
  /** Set by the final accumulator when a signature belongs to this (reasoning) block. */
  signature: string | null = null;

  constructor(type: TextBlockType, choice: number, index: number, contentIndex: number) {
    this.type = type;
    this.choice = choice;
    this.index = index;
    this.contentIndex = contentIndex;
  }

  /**
   * Appends a delta. Every GROUP deltas are joined into one string: a long
   * response then holds a few thousand flat strings instead of 10^5 small ones
   * (each possibly a slice keeping its whole frame text alive), which the
   * garbage collector would copy around until the response ends. When 256
   * deltas hold half of LARGE characters or more (long deltas: Gemini,
   * Interactions), the group goes on to LARGE characters (at most 4 × GROUP
   * deltas): smaller joined groups of such text were copied by every
   * scavenge until promoted; a group of LARGE characters is not.
   */
  append(text: string): void {
    if (this.rawBytes > 0) {
      // A delta read as a string among wire-byte ones (its frame missed the templates: cut by a chunk's
      // end, say) joins the bytes as UTF-8: decoding them here would have them encoded again at the next one.
      if (text.length <= ABSORB_MAX && !LONE_SURROGATE.test(text)) {
        const raw = (this.raw = room(this.raw, this.rawBytes, this.rawBytes + 3 * text.length));
        this.rawBytes += writeUtf8(raw, text, this.rawBytes);
        return;
      }
      this.flushRaw();
    }
    if (this.units !== null) {
      this.write(text);
      return;
    }
    const parts = this.parts;
    parts.push(text);
    this.pendingChars += text.length;
    const n = parts.length - this.grouped;
    if (n >= GROUP && (this.pendingChars < LARGE / 2 || this.pendingChars >= LARGE || n >= 4 * GROUP)) {
      const long = this.pendingChars >= n * LONG_DELTA;
      this.pendingChars = 0;
      const group = parts.slice(this.grouped).join('');
      parts.length = this.grouped;
      parts.push(group);
      this.grouped++;
      // Long deltas of two-byte text (Gemini, Interactions): joining them into groups and the
      // groups into the text wrote every character twice into fresh large objects, a page fault
      // per page (far fewer this way, where the buffer and the text read out of it are malloc'ed
      // memory that gets reused). One-byte text stays in parts (a buffer would double its size),
      // and so do short deltas (one native call each costs more than their share of a join).
      // (a runtime without a native UTF-16 write, a browser say, keeps the parts)
      if (long && nativeUnits !== null && TWO_BYTE.test(group)) {
        this.units = alloc(Math.max(1 << 16, 4 * group.length));
        for (const part of parts) this.write(part);
        this.parts = [];
        this.grouped = 0;
      }
    }
  }

  /**
   * Writes a delta given as its JSON string body on the wire, one character
   * per byte of valid UTF-8, escapes undecoded (the latin1 view of a chunk):
   * the bytes are copied as they are and unescaped in place, and the text is
   * decoded once, when read. Returns the UTF-8 bytes it adds, to be kept by
   * commitRaw; -1 (nothing added) for an escape UTF-8 cannot carry (a
   * surrogate, whose pair may come in the next delta) or one JSON does not
   * have, which the decoded string must then take.
   */
  writeRaw(body: string): number {
    if (this.raw === null && this.parts.length > 0) this.absorbParts();
    const at = this.rawBytes;
    const raw = (this.raw = room(this.raw, at, at + body.length));
    writeLatin1(raw, body, at);
    let b = body.indexOf('\\');
    if (b === -1) return body.length;
    let w = at + b;
    for (;;) {
      const e = body.charCodeAt(b + 1);
      let from = b + 2;
      switch (e) {
        case 0x6e: // n
          raw[w++] = 10;
          break;
        case 0x22: // "
        case 0x5c: // \
        case 0x2f: // /
          raw[w++] = e;
          break;
        case 0x74: // t
          raw[w++] = 9;
          break;
        case 0x72: // r
          raw[w++] = 13;
          break;
        case 0x62: // b
          raw[w++] = 8;
          break;
        case 0x66: // f
          raw[w++] = 12;
          break;
        case 0x75: {
          // u: four hex digits
          const h = at + from;
          const d0 = hexDigit(raw[h]!), d1 = hexDigit(raw[h + 1]!), d2 = hexDigit(raw[h + 2]!), d3 = hexDigit(raw[h + 3]!);
          if ((d0 | d1 | d2 | d3) < 0) return -1;
          const cp = (d0 << 12) | (d1 << 8) | (d2 << 4) | d3;
          from += 4;
          if (cp < 0x80) raw[w++] = cp;
          else if (cp < 0x800) {
            raw[w++] = 0xc0 | (cp >> 6);
            raw[w++] = 0x80 | (cp & 0x3f);
          } else if (cp >= 0xd800 && cp <= 0xdfff) return -1;
          else {
            raw[w++] = 0xe0 | (cp >> 12);
            raw[w++] = 0x80 | ((cp >> 6) & 0x3f);
            raw[w++] = 0x80 | (cp & 0x3f);
          }
          break;
        }
        default:
          return -1;
      }
      b = body.indexOf('\\', from);
      const until = b === -1 ? body.length : b;
      if (until - from >= SHORT_RUN) {
        raw.copyWithin(w, at + from, at + until);
        w += until - from;
      } else for (let k = at + from; k < at + until; k++) raw[w++] = raw[k]!;
      if (b === -1) return w - at;
    }
  }

  /**
   * Moves a short text so far (the first deltas, read before a template
   * learned their layout) into the wire-byte buffer as UTF-8, so that the
   * text is read out as one string instead of joined to it (a copy of all of
   * it). Not text with a lone surrogate (UTF-8 cannot carry it), nor a long
   * one (a text read mid-stream would be re-encoded at every read).
   */
  private absorbParts(): void {
    const parts = this.parts;
    let chars = 0;
    for (const part of parts) {
      chars += part.length;
      if (chars > ABSORB_MAX || LONE_SURROGATE.test(part)) return;
    }
    let bytes = 0;
    const raw = (this.raw = room(null, 0, 3 * chars));
    for (const part of parts) bytes += writeUtf8(raw, part, bytes);
    this.rawBytes = bytes;
    this.parts = [];
    this.grouped = 0;
    this.pendingChars = 0;
  }

  /** Keeps the `bytes` writeRaw added. */
  commitRaw(bytes: number): void {
    this.rawBytes += bytes;
  }

  /** The text taken as wire bytes, decoded into a part of its own (the bytes are valid UTF-8). */
  private flushRaw(): void {
    const text = decodeValid(this.raw!.subarray(0, this.rawBytes));
    release(this.raw!);
    this.raw = null;
    this.rawBytes = 0;
    if (this.units === null && this.parts.length === 0) {
      this.parts.push(text);
      this.grouped = 1;
    } else this.append(text);
  }

  /** True while the text is kept as UTF-16 code units (long deltas of two-byte text) instead of parts. */
  get utf16(): boolean {
    return this.units !== null;
  }

  /**
   * Appends `text` to the code units (UTF-16 mode). The buffer grows fourfold:
   * pages it has not written yet cost no memory, and each growth copies what
   * came before (a third of the text in all, against all of it when doubling).
   */
  private write(text: string): void {
    const units = (this.units = room(this.units, this.unitBytes, this.unitBytes + 2 * text.length));
    this.unitBytes += nativeUnits!.write(units, text, this.unitBytes);
  }

  /** The block's text; collapses the parts so repeated reads do not re-join. */
  text(): string {
    if (this.rawBytes > 0) this.flushRaw();
    if (this.units !== null) {
      // (read out once: the buffer goes, the text stays as the only part)
      const text = nativeUnits!.read(this.units, 0, this.unitBytes);
      release(this.units);
      this.units = null;
      this.unitBytes = 0;
      this.parts = [text];
      this.grouped = 1;
      return text;
    }
    const parts = this.parts;
    if (parts.length === 1) return parts[0] as string;
    if (parts.length === 0) return '';
    const joined = parts.join('');
    this.parts = [joined];
    this.grouped = 1;
    this.pendingChars = 0;
    return joined;
  }

  /** UTF-8 bytes of the text so far (for the byte limit; measured once, when the cheap bound no longer holds). */
  utf8Bytes(): number {
    let bytes = this.rawBytes;
    if (this.units !== null) bytes += byteLength(nativeUnits!.read(this.units, 0, this.unitBytes));
    for (const part of this.parts) bytes += byteLength(part);
    return bytes;
  }
}

/** Normalizes an event's `choice` (absent, or not a small non-negative integer, means choice 0). */
export function choiceOf(choice: number | undefined): number {
  return choice !== undefined && choice >>> 0 === choice ? choice : 0;
}

/**
 * The blocks of one response in order of first appearance, keyed by
 * (choice, type, index, contentIndex). Consecutive deltas of the same block
 * (the common case) skip the map lookup.
 */
export class TextStore implements Utf8Source {
  blocks: TextBlock[] = [];
  private keyed = new Map<string, TextBlock>();
  /** Last reasoning block per `choice:index`, for signatures. */
  private reasoningAt = new Map<string, TextBlock>();
  private last: TextBlock | null = null;
  private readonly meter: ByteMeter;

  constructor(
    maxTextBytes: number,
    private readonly counter: BlockCounter,
    private readonly onBlock?: (block: TextBlock) => void,
  ) {
    this.meter = new ByteMeter(maxTextBytes, 'maxTextBytes', 'text and reasoning of one response');
  }

  /** Appends a delta; empty text never creates a block. */
  add(type: TextBlockType, choice: number, index: number, contentIndex: number, text: string): void {
    if (text.length === 0) return;
    const block = this.current(type, choice, index, contentIndex);
    this.meter.add(text, this);
    block.append(text);
  }

  /** Appends a delta given as its wire bytes (see TextBlock.writeRaw); false when the decoded string must be added instead. */
  addRaw(type: TextBlockType, choice: number, index: number, contentIndex: number, body: string): boolean {
    if (body.length === 0) return true;
    const block = this.current(type, choice, index, contentIndex);
    const bytes = block.writeRaw(body);
    if (bytes < 0) return false;
    this.meter.addBytes(bytes, this);
    block.commitRaw(bytes);
    return true;
  }

  /** The block a delta goes to: consecutive deltas of the same block (the common case) skip the map lookup. */
  private current(type: TextBlockType, choice: number, index: number, contentIndex: number): TextBlock {
    const block = this.last;
    if (block !== null && block.index === index && block.type === type && block.contentIndex === contentIndex && block.choice === choice) return block;
    return (this.last = this.blockFor(type, choice, index, contentIndex));
  }

  /** The last reasoning block of (choice, index), if any. */
  reasoningBlock(choice: number, index: number): TextBlock | undefined {
    return this.reasoningAt.get(`${choice}:${index}`);
  }

  /** A new, empty reasoning block (one that carries only a signature). */
  addReasoningBlock(choice: number, index: number): TextBlock {
    return this.blockFor('reasoning', choice, index, -1);
  }

  utf8Bytes(): number {
    let bytes = 0;
    for (const block of this.blocks) bytes += block.utf8Bytes();
    return bytes;
  }

  reset(): void {
    this.blocks = [];
    this.keyed.clear();
    this.reasoningAt.clear();
    this.last = null;
    this.meter.reset();
  }

  private blockFor(type: TextBlockType, choice: number, index: number, contentIndex: number): TextBlock {
    const key = `${choice}:${type}:${index}:${contentIndex}`;
    let block = this.keyed.get(key);
    if (block === undefined) {
      this.counter.add();
      block = new TextBlock(type, choice, index, contentIndex);
      this.keyed.set(key, block);
      this.blocks.push(block);
      if (type === 'reasoning') this.reasoningAt.set(`${choice}:${index}`, block);
      this.onBlock?.(block);
    }
    return block;
  }
}

/** A block as the text accumulator reports it. */
export interface TextBlockInfo {
  choice: number;
  type: TextBlockType;
  index: number;
  contentIndex: number | null;
  text: string;
}

export interface TextAccumulator extends Stage<UnifiedEvent, UnifiedEvent> {
  /** The current (or last finished) response's blocks in order of first appearance. */
  blocks(): TextBlockInfo[];
  /** Visible text of a choice, blocks concatenated without separator. */
  text(choice?: number): string;
  /** Refusal text of a choice, or null when it had none. */
  refusal(choice?: number): string | null;
  reasoning(choice?: number): string;
}

/**
 * Passes events through unchanged and keeps the text of the current response
 * (state resets when the next response begins, so it can be read after `done`).
 * Audio transcripts (`transcript: true`) count as visible text.
 */
export function createTextAccumulator(options: TextAccumulatorOptions = {}): TextAccumulator {
  options = optionsObject(options);
  const counter = new BlockCounter(limitOption('maxBlocks', options.maxBlocks, DEFAULT_MAX_BLOCKS));
  const store = new TextStore(limitOption('maxTextBytes', options.maxTextBytes, DEFAULT_MAX_TEXT_BYTES), counter);
  const tracker = new ResponseTracker();

  function joined(type: TextBlockType, choice: number): string | null {
    const parts: string[] = [];
    for (const block of store.blocks) if (block.type === type && block.choice === choice) parts.push(block.text());
    return parts.length === 0 ? null : parts.join('');
  }

  return {
    push(ev: UnifiedEvent, emit: Emit<UnifiedEvent>) {
      const step = tracker.step(ev);
      if (step === BEGIN || step === RESTART) {
        store.reset();
        counter.reset();
      }
      if (ev.type === 'text_delta') {
        store.add(ev.refusal === true ? 'refusal' : 'text', choiceOf(ev.choice), ev.index, ev.contentIndex ?? -1, ev.text);
      } else if (ev.type === 'reasoning_delta') {
        store.add('reasoning', choiceOf(ev.choice), ev.index, ev.contentIndex ?? -1, ev.text);
      }
      emit(ev);
    },
    end() {},
    blocks() {
      return store.blocks.map((b) => ({
        choice: b.choice,
        type: b.type,
        index: b.index,
        contentIndex: b.contentIndex < 0 ? null : b.contentIndex,
        text: b.text(),
      }));
    },
    text(choice = 0) {
      return joined('text', choice) ?? '';
    },
    refusal(choice = 0) {
      return joined('refusal', choice);
    },
    reasoning(choice = 0) {
      return joined('reasoning', choice) ?? '';
    },
  };
}
