/**
 * Event templates: the raw-text fast path one level up, for SSE. Once a
 * payload template has recognised a frame whose block was plain (no `id:`
 * line, one `data:` line, all within one chunk), the block's exact bytes
 * around the payload plus the template's line form become one sticky regex
 * over the chunk's text. At the first byte of the next event one exec then
 * frames, decodes and recognises the whole event: no line splitting, no frame
 * object.
 *
 * Bytes above 0x7F can only be inside captured strings (the line form admits
 * ASCII elsewhere, and the block's own bytes must be ASCII). A chunk is read
 * one of two ways, chosen by how many of the matched events of the chunks
 * before (the last ones counting most) held such bytes:
 * - as latin1 (one character per byte, so string offsets are byte offsets);
 *   the few captures holding bytes above 0x7F are decoded as UTF-8 from the
 *   chunk and validated before the handler sees anything, so an invalid
 *   sequence leaves the event to the ordinary path and its invalid_utf8 report;
 * - decoded as UTF-8 once, from the first event tried in it, when most events
 *   carry non-ASCII text (one decode of the chunk then costs less than one per
 *   capture). Captures are slices of that text. A chunk that is not valid
 *   UTF-8 is left to the ordinary path whole. Text offsets are mapped back to
 *   byte offsets: an event's extra UTF-8 bytes are all in its payload, and the
 *   bytes the ordinary path reads between two events are counted one by one.
 *   (The line form's ASCII-only classes exclude U+0080-U+00FF, not all of
 *   non-ASCII, in this view: an ignored string may match with other
 *   characters, still inside the payload, which is all the mapping needs.)
 * A consumer that takes text as its wire bytes (fused final mode, rawText)
 * has every chunk read in the latin1 view and checked whole for valid UTF-8
 * (one native call): its captures are then decoded only when read as
 * strings, and `raw` hands a text capture on undecoded.
 */
import { isAscii, isUtf8 } from '../bytes/index.js';
import { HIGH_BYTE, latin1, replacedInvalidUtf8, utf8 } from '../framing/utf8.js';
import { decodeWireBody, unescapeJson } from '../framing/json-text.js';
import { LearnedTemplates, escapeRe, readCapture, readFilled, type Template, type TemplateMatch } from './template.js';

interface EventTemplate {
  readonly re: RegExp;
  readonly source: string;
  readonly kind: number;
  readonly groups: readonly number[];
  readonly strings: readonly number[];
  /** Length of the literal bytes after the payload. */
  readonly suffix: number;
  /** The literal bytes after the payload (line end and blank line). */
  readonly tail: string;
}

function readInt(m: RegExpExecArray | null, groups: readonly number[], f: number): number | undefined {
  const g = groups[f];
  return g === undefined || g === 0 ? undefined : Number(m![g]);
}

/** A json field is ASCII by construction (its strings are), so the text of either view is the JSON text. */
function readJson(m: RegExpExecArray | null, groups: readonly number[], f: number): string | undefined {
  const g = groups[f];
  return g === undefined || g === 0 ? undefined : m![g];
}

function readStr(m: RegExpExecArray | null, groups: readonly number[], decoded: readonly (string | undefined)[], f: number): string | undefined {
  const g = groups[f];
  if (g === undefined || g === 0) return undefined;
  const s = decoded[g] ?? m![g]!;
  const b = s.indexOf('\\');
  return b === -1 ? s : unescapeJson(s, b);
}

/** A capture in the latin1 view of valid UTF-8, decoded and unescaped. */
function readLazy(m: RegExpExecArray | null, groups: readonly number[], f: number): string | undefined {
  const g = groups[f];
  return g === undefined || g === 0 ? undefined : decodeWireBody(m![g]!);
}

/**
 * True when text[at, …) holds no blank line (two line ends in a row), for
 * the holder of a cut event: the bytes past the text's end hold
 * no line end at all, and line ends are the same characters in either view.
 */
function blankFree(text: string, at: number): boolean {
  // (`at` is a line start: a line end there is a blank line)
  const c = text.charCodeAt(at);
  if (c === 10 || c === 13 || text.indexOf('\n\n', at) !== -1) return false;
  return text.indexOf('\r', at) === -1 || (text.indexOf('\r\r', at) === -1 && text.indexOf('\n\r', at) === -1);
}

/** EventTemplateStore.match's answer: no template matched, but one might have with bytes past the chunk's end (see cut-events.ts). */
export const EVENT_CUT = -2;
/**
 * The same, and the bytes from the event's start to the chunk's end hold no
 * blank line (so the holder of cut events need not look: a loop over the
 * held bytes per chunk shows at small chunks).
 */
export const EVENT_CUT_CLEAN = -3;

const NONE_DECODED: readonly (string | undefined)[] = [];
/**
 * Latin1 view: chunks from this size on are checked whole for bytes above
 * 0x7F (one native scan, then no per-capture test on an ASCII chunk); on
 * smaller ones the call costs more than testing their few captures.
 */
const ASCII_CHECK_MIN = 16 * 1024;
/**
 * Larger chunks are read the ordinary way: their text would double (or
 * triple) their memory for the length of the chunk, and V8 cannot make a
 * string of more than 2^29 - 24 characters at all (a whole log read into one
 * Buffer).
 */
export const MAX_EVENT_CHUNK = 16 * 1024 * 1024;
/** Most bytes of a block around its payload that an event template spells out. */
const MAX_LITERAL = 1024;
const NOT_ASCII = /[^\x00-\x7f]/;
/** UTF-8 view: bytes from which mapping a span to text offsets checks it for ASCII first (shorter: the loop is cheaper than the call). */
const ASCII_SPAN_MIN = 64;
const STREAM = { stream: true };

/** Sticky regexes by source, shared by every stream (bounded like the payload templates' cache). */
const compiled = new Map<string, RegExp>();
const MAX_COMPILED = 256;

function compileSticky(source: string): RegExp {
  let re = compiled.get(source);
  if (re === undefined) {
    re = new RegExp(source, 'y');
    if (compiled.size < MAX_COMPILED) compiled.set(source, re);
  }
  return re;
}

/** The event templates of one stream, and the reader of the last match. */
export class EventTemplateStore implements TemplateMatch {
  private readonly learned = new LearnedTemplates<EventTemplate>();
  private m: RegExpExecArray | null = null;
  private groups: readonly number[] = [];
  /** Latin1 view: per capture group, the UTF-8 decoded string when the capture held bytes above 0x7F. */
  private decoded: (string | undefined)[] = [];
  /** True when the last match decoded a capture (else `decoded` holds nothing). */
  private anyDecoded = false;
  /**
   * The chunk being read and its text from byte `base` on, made on first use:
   * the latin1 view (base 0), or the UTF-8 view ('' when the chunk is not
   * valid UTF-8: it is not tried), whose offsets are `mapped` to byte offsets
   * unless it is all ASCII.
   */
  private chunk: Uint8Array | null = null;
  private base = 0;
  private text = '';
  private utf8View = false;
  private mapped = false;
  /** Latin1 view: the chunk is known to be all ASCII (no capture needs decoding). */
  private ascii = false;
  /**
   * In stream mode, which on Node 20 decodes this text faster than without
   * it or Buffer#utf8Slice; it never holds bytes back here, as the decoded
   * range ends on a whole character.
   */
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  /** UTF-8 view: a byte offset in the chunk and the text offset it maps to (the end of the last match). */
  private atByte = 0;
  private atChar = 0;
  /** The byte offset where the chunk's text ends (its last line end), or its length when the chunk is not tried. */
  private viewEnd = 0;
  /**
   * Events matched, and how many of them held bytes above 0x7F, the counts
   * halved at each chunk (small chunks hold a few events each): the next
   * chunk's view follows from them.
   */
  private matched = 0;
  private high = 0;
  /** Where `tail` last occurs in `text`: an event that would end past it cannot match (it goes on in the next chunk). */
  private tail = '';
  private lastTail = -1;
  kind = 0;
  /**
   * Set by a consumer that takes text as its wire bytes (see raw): chunks are
   * always read in the latin1 view, checked whole for valid UTF-8 instead of
   * decoding each capture that holds bytes above 0x7F.
   */
  rawText = false;
  /** Latin1 view with rawText: the chunk is valid UTF-8 from byte validFrom on (its captures need no check; str decodes them when read). */
  private valid = false;
  private validFrom = 0;
  /** The last match's captures were not decoded (valid chunk): str decodes on reading. */
  private lazy = false;

  get size(): number {
    return this.learned.list.length;
  }

  /** The next chunk may be a Buffer read before, refilled by its caller: its text is made anew. */
  newChunk(): void {
    this.chunk = null;
  }

  /**
   * Recognises the event starting at `buf[pos]`. Returns the event's end,
   * EVENT_CUT when no template matched and one would have needed bytes past
   * the chunk's end (EVENT_CUT_CLEAN when there is no blank line from `pos`
   * on either), or -1 (no template matches, the event is longer than
   * `limit`, a captured string is not valid UTF-8, or the chunk is over
   * MAX_EVENT_CHUNK).
   */
  match(buf: Uint8Array, pos: number, limit: number): number {
    const list = this.learned.list;
    if (list.length === 0 || buf.length > MAX_EVENT_CHUNK) return -1;
    if (buf !== this.chunk || pos < this.base) this.read(buf, pos);
    const text = this.text;
    const at = !this.mapped ? pos - this.base : pos === this.atByte ? this.atChar : this.charAt(buf, pos);
    // past the chunk's last line end: no event ends in this chunk (and no line does)
    if (at >= text.length) return this.viewEnd < buf.length ? EVENT_CUT_CLEAN : -1;
    let cut = false;
    for (let i = 0; i < list.length; i++) {
      const t = list[i]!;
      if (t.tail !== this.tail) {
        this.tail = t.tail;
        this.lastTail = text.lastIndexOf(t.tail);
      }
      // an event cut by the chunk's end fails anyway, after reading to the end: do not start
      if (this.lastTail < at) {
        cut = true;
        continue;
      }
      const re = t.re;
      re.lastIndex = at;
      const m = re.exec(text);
      if (m === null) continue;
      const endChar = re.lastIndex;
      const end = this.mapped ? this.byteEnd(buf, pos, t, endChar - at) : pos + endChar - at;
      if (end - pos > limit) return -1;
      this.lazy = this.valid && pos >= this.validFrom;
      if (!this.utf8View && !this.lazy && !this.decodeCaptures(buf, m, t, pos)) return -1;
      this.matched++;
      // non-ASCII text: extra bytes (UTF-8 view) or a capture decoded (latin1 view)
      if (this.utf8View ? end - pos !== endChar - at : this.anyDecoded && !this.lazy) this.high++;
      this.learned.hit(i);
      this.m = m;
      this.groups = t.groups;
      this.kind = t.kind;
      this.atByte = end;
      this.atChar = endChar;
      return end;
    }
    return !cut ? -1 : blankFree(text, at) ? EVENT_CUT_CLEAN : EVENT_CUT;
  }

  /** Makes the chunk's text from byte `pos` on, in the view the last chunks' events call for. */
  private read(buf: Uint8Array, pos: number): void {
    this.utf8View = !this.rawText && this.high * 2 > this.matched;
    this.matched /= 2;
    this.high /= 2;
    this.chunk = buf;
    this.tail = '';
    this.atByte = pos;
    this.atChar = 0;
    // Only up to the last line end: an event ends in one, and the bytes after
    // it (an event the chunk cuts off) are read again with the next chunk.
    const lf = buf.lastIndexOf(10);
    const cr = buf.lastIndexOf(13);
    const end = (lf > cr ? lf : cr) + 1;
    this.viewEnd = end;
    if (!this.utf8View) {
      this.base = 0;
      this.text = latin1(buf, 0, end);
      this.mapped = false;
      if (this.rawText) {
        this.ascii = false;
        this.valid = pos >= end || isUtf8(buf.subarray(pos, end));
        this.validFrom = pos;
      } else {
        this.ascii = buf.length >= ASCII_CHECK_MIN && isAscii(buf);
        this.valid = false;
      }
      return;
    }
    this.base = pos;
    this.valid = false;
    // (a line end is a character boundary)
    const text = pos >= end ? '' : this.decoder.decode(buf.subarray(pos, end), STREAM);
    // (an invalid byte may decode to one U+FFFD: equal lengths alone do not prove ASCII)
    if (replacedInvalidUtf8(text, buf, pos, end)) {
      this.text = '';
      this.viewEnd = buf.length; // not tried at all
    } else this.text = text;
    this.mapped = text.length !== end - pos;
  }

  /**
   * UTF-8 view: the byte end of an event of `chars` text units matched at
   * byte `pos`. Only its payload can hold characters above U+007F, and a
   * payload holds no CR or LF (JSON strings cannot), so the suffix starts at
   * the first line end byte from where the payload would end were it ASCII:
   * the bytes stepped over are the payload's extra UTF-8 bytes, a few per event.
   */
  private byteEnd(buf: Uint8Array, pos: number, t: EventTemplate, chars: number): number {
    const nl = t.tail.charCodeAt(0);
    let i = pos + chars - t.suffix;
    while (buf[i] !== nl && i < buf.length) i++;
    return i + t.suffix;
  }

  /** UTF-8 view: the text offset of byte `pos` (a character boundary at or after `base`). */
  private charAt(buf: Uint8Array, pos: number): number {
    const back = pos < this.atByte;
    let c = back ? 0 : this.atChar;
    let i = back ? this.base : this.atByte;
    // (the ordinary events between two matched ones are mostly ASCII: one native check instead of a loop over their bytes)
    if (pos - i >= ASCII_SPAN_MIN && isAscii(buf.subarray(i, pos))) {
      c += pos - i;
      i = pos;
    }
    for (; i < pos; i++) {
      const b = buf[i]!;
      // a lead byte starts a character: four-byte ones are two UTF-16 units
      if ((b & 0xc0) !== 0x80) c += b >= 0xf0 ? 2 : 1;
    }
    this.atByte = pos;
    this.atChar = c;
    return c;
  }

  /** Latin1 view: decodes the captured strings holding bytes above 0x7F; false when one is not valid UTF-8. */
  private decodeCaptures(buf: Uint8Array, m: RegExpExecArray, t: EventTemplate, pos: number): boolean {
    const decoded = this.decoded;
    const text = this.text;
    const strings = t.strings;
    let anyDecoded = false;
    for (let k = 0; k < strings.length; k++) {
      const g = strings[k]!;
      decoded[g] = undefined;
      if (this.ascii) continue;
      const c = m[g]!;
      if (!HIGH_BYTE.test(c)) continue;
      // Any occurrence of the same bytes decodes the same: the first from pos will do.
      const at = text.indexOf(c, pos);
      const s = utf8(buf, at, at + c.length);
      if (replacedInvalidUtf8(s, buf, at, at + c.length)) return false;
      decoded[g] = s;
      anyDecoded = true;
    }
    this.anyDecoded = anyDecoded;
    return true;
  }

  int(f: number): number | undefined {
    return readInt(this.m, this.groups, f);
  }

  json(f: number): string | undefined {
    return readJson(this.m, this.groups, f);
  }

  str(f: number): string | undefined {
    if (this.lazy) return readLazy(this.m, this.groups, f);
    return readStr(this.m, this.groups, this.utf8View ? NONE_DECODED : this.decoded, f);
  }

  filled(f: number): boolean {
    return readFilled(this.m, this.groups, f);
  }

  /**
   * Field f's JSON string body as it is on the wire (escapes undecoded), one
   * character per byte of valid UTF-8, when the last match can give it (a
   * chunk read with rawText that is valid UTF-8); else undefined.
   */
  raw(f: number): string | undefined {
    return this.lazy ? readCapture(this.m, this.groups, f) : undefined;
  }

  /** (In a latin1 view the body is raw's: none here.) */
  body(f: number): string | undefined {
    if (this.lazy) return undefined;
    const g = this.groups[f];
    if (g === undefined || g === 0) return undefined;
    return (this.utf8View ? undefined : this.decoded[g]) ?? this.m![g];
  }

  /**
   * Adds the event template of a plain block buf[start, end) whose data line
   * payload buf[dataStart, dataEnd) `template` has just recognised.
   */
  learn(template: Template | null, buf: Uint8Array, start: number, dataStart: number, dataEnd: number, end: number): void {
    if (template === null || template.lineSource === null || !this.learned.learning) return;
    // an event name, a few field lines and line ends; more (long comments) is not worth a regex of its own
    if (dataStart - start + (end - dataEnd) > MAX_LITERAL) return;
    const prefix = latin1(buf, start, dataStart);
    const suffix = latin1(buf, dataEnd, end);
    if (NOT_ASCII.test(prefix) || NOT_ASCII.test(suffix)) return;
    const source = escapeRe(prefix) + template.lineSource + escapeRe(suffix);
    for (const t of this.learned.list) if (t.source === source) return;
    const re = compileSticky(source);
    const block = latin1(buf, start, end);
    re.lastIndex = 0;
    if (re.exec(block) === null || re.lastIndex !== block.length) this.learned.miss();
    else this.learned.add({ re, source, kind: template.kind, groups: template.groups, strings: template.strings, suffix: suffix.length, tail: suffix });
  }

  /** True while learning is worth trying. */
  get learning(): boolean {
    return this.learned.learning;
  }

  clear(): void {
    this.learned.clear();
    this.m = null;
    this.chunk = null;
    this.text = '';
    this.tail = '';
    this.lazy = false;
  }
}
