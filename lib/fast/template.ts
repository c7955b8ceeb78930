/**
 * Payload templates for the raw-text fast path: a dialect recognises its
 * high-volume payloads (text, reasoning and argument deltas) straight from the
 * frame text with one native regex match instead of JSON.parse.
 *
 * A template is learned from a payload the parse path has just handled: the
 * dialect's `learnTemplate` (lib/fast/dialects/<dialect>.ts) walks the parsed object in its
 * key order and says, key by key, whether the value is a constant (must be
 * equal), a field the handler reads (captured), or ignored by the handler
 * (`free`: any value of the same JSON type and shape). Any key it does not know
 * makes the payload unlearnable. The regex built from that walk matches exactly
 * the texts that JSON.parse would turn into an object with the same keys in the
 * same order, the same constants and same-shaped ignored values: strings,
 * numbers and whitespace follow the JSON grammar, so a text it matches is
 * valid JSON. Anything else (another key order, an extra key, a nested value
 * of another shape) simply does not match and takes the parse path.
 *
 * Learned per stream (a provider keeps its key order), a few templates per
 * dialect; compiled regexes are shared through a bounded cache keyed by their
 * source.
 */
import type { Json, JsonObject } from '../events.js';
import { unescapeJson } from '../framing/json-text.js';

/** JSON whitespace (the only whitespace JSON.parse accepts between tokens). */
const WS = '[ \\t\\n\\r]*';
/** The inside of a JSON string: any character but `"`, `\` and controls, or a valid escape (unrolled: no backtracking per character). */
const STR = '[^"\\\\\\x00-\\x1f]*(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\\\\x00-\\x1f]*)*';
/**
 * The same two inside one SSE line read as latin1 (see event-template.ts):
 * CR and LF end a line, so whitespace is blanks and tabs; strings the handler
 * ignores are ASCII only, so that bytes above 0x7F (UTF-8 to decode and
 * validate) can only be in captured strings.
 */
const LINE_WS = '[ \\t]*';
const LINE_ASCII_STR = '[^"\\\\\\x00-\\x1f\\x80-\\xff]*(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\\\\x00-\\x1f\\x80-\\xff]*)*';
/** Any JSON number. */
const NUM = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?';
/** A captured integer: canonical, non-negative, at most 15 digits (exact as a double). */
const INT = '(0|[1-9][0-9]{0,14})';

/** Longest regex source a template may have (keeps learning from a huge payload cheap). */
const MAX_SOURCE = 4096;
/** Texts longer than this always take the parse path (its cost dominates there anyway). */
export const MAX_TEMPLATE_TEXT = 64 * 1024;

export function escapeRe(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** What a learned template stands for: a dialect-defined kind and where each field was captured. */
export interface Template {
  readonly re: RegExp;
  readonly kind: number;
  /** Capture group of field f at [f]; 0 when the payload had no such field. */
  readonly groups: readonly number[];
  /**
   * The same payload as one SSE data line read as latin1 (no anchors), for
   * event templates; null when the payload has a key or constant that is not
   * ASCII (its UTF-8 bytes would have to be spelled out).
   */
  readonly lineSource: string | null;
  /** Capture groups of the string fields (the ones that may hold UTF-8 to decode in a latin1 match). */
  readonly strings: readonly number[];
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Builds one template's regex from a walk over a parsed payload. Every method
 * appends the JSON tokens of one key or value, to the payload regex and to its
 * SSE-line twin; a builder that met something it cannot express is `failed`
 * and yields no template.
 */
export class TemplateBuilder {
  private src = '^' + WS;
  private line: string | null = LINE_WS;
  private group = 0;
  private readonly groups: number[] = [];
  private readonly strings: number[] = [];
  /** Per open object: whether a member was written (decides the comma). */
  private readonly members: boolean[] = [];
  failed = false;

  constructor(private readonly kind: number) {}

  /** `{` (the payload itself, or the value of the key just written) */
  open(): this {
    this.put('\\{').ws();
    this.members.push(false);
    return this;
  }

  /** `}` */
  close(): this {
    this.members.pop();
    this.put('\\}').ws();
    return this;
  }

  /** `[` (the value of the key just written, or an array element) */
  openArray(): this {
    this.put('\\[').ws();
    this.members.push(false);
    return this;
  }

  /** `]` */
  closeArray(): this {
    this.members.pop();
    this.put('\\]').ws();
    return this;
  }

  /** Starts the next element of the innermost open array. */
  element(): this {
    const n = this.members.length - 1;
    if (n < 0) return this.fail();
    if (this.members[n]) this.put(',').ws();
    this.members[n] = true;
    return this;
  }

  /** `"key":` in the innermost open object. */
  key(k: string): this {
    const n = this.members.length - 1;
    if (n < 0) return this.fail();
    if (this.members[n]) this.put(',').ws();
    this.members[n] = true;
    this.literal(JSON.stringify(k)).ws().put(':').ws();
    return this;
  }

  /** A value that must be equal to `v` (a scalar, or an empty array/object). */
  constant(v: Json | undefined): this {
    if (v === undefined) return this.fail();
    if (v === null || typeof v !== 'object') this.literal(JSON.stringify(v));
    else if (Array.isArray(v) ? v.length === 0 : isEmptyObject(v)) {
      if (Array.isArray(v)) this.put('\\[').ws().put('\\]');
      else this.put('\\{').ws().put('\\}');
    } else return this.fail();
    return this.ws();
  }

  /** A string value read by the handler, captured as field `f`. */
  string(f: number, v: Json | undefined): this {
    if (typeof v !== 'string') return this.fail();
    this.put('"(' + STR + ')"').ws();
    this.groups[f] = ++this.group;
    this.strings.push(this.group);
    return this;
  }

  /** A non-negative integer value read by the handler, captured as field `f`. */
  int(f: number, v: Json | undefined): this {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return this.fail();
    this.put(INT).ws();
    this.groups[f] = ++this.group;
    return this;
  }

  /** A value the handler ignores: any value of the same JSON type (containers: same keys and length, recursively). */
  free(v: Json | undefined): this {
    if (v === undefined) return this.fail();
    this.freeValue(v, 0);
    return this.ws();
  }

  /** Like `free`, and the value's JSON text is captured as field `f` (read with `json`). */
  json(f: number, v: Json | undefined): this {
    if (v === undefined) return this.fail();
    this.put('(');
    this.freeValue(v, 0);
    this.put(')').ws();
    this.groups[f] = ++this.group;
    return this;
  }

  /** The regex, or null when the payload could not be expressed. */
  build(): Template | null {
    if (this.failed || this.src.length > MAX_SOURCE) return null;
    const groups: number[] = [];
    for (let i = 0; i < this.groups.length; i++) groups.push(this.groups[i] ?? 0);
    return { re: compile(this.src + '$'), kind: this.kind, groups, lineSource: this.line, strings: this.strings };
  }

  fail(): this {
    this.failed = true;
    return this;
  }

  /** Regex text that reads the same in both forms. */
  private put(re: string): this {
    this.src += re;
    if (this.line !== null) this.line += re;
    return this;
  }

  /** Optional whitespace. */
  private ws(): this {
    this.src += WS;
    if (this.line !== null) this.line += LINE_WS;
    return this;
  }

  /** The JSON text of a key or constant, matched literally; a line form would need its UTF-8 bytes, so non-ASCII has none. */
  private literal(json: string): this {
    if (NON_ASCII.test(json)) this.line = null;
    return this.put(escapeRe(json));
  }

  /** A string the handler ignores. */
  private ignoredString(): void {
    this.src += '"' + STR + '"';
    if (this.line !== null) this.line += '"' + LINE_ASCII_STR + '"';
  }

  private freeValue(v: Json, depth: number): void {
    if (depth > 8 || this.src.length > MAX_SOURCE) {
      this.failed = true;
      return;
    }
    if (typeof v === 'string') this.ignoredString();
    else if (typeof v === 'number') this.put(NUM);
    else if (typeof v === 'boolean') this.put('(?:true|false)');
    else if (v === null) this.put('null');
    else if (Array.isArray(v)) {
      this.put('\\[').ws();
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.put(',').ws();
        this.freeValue(v[i]!, depth + 1);
        this.ws();
      }
      this.put('\\]');
    } else {
      this.put('\\{').ws();
      let first = true;
      for (const k in v) {
        if (!first) this.put(',').ws();
        first = false;
        this.literal(JSON.stringify(k)).ws().put(':').ws();
        this.freeValue(v[k]!, depth + 1);
        this.ws();
      }
      this.put('\\}');
    }
  }
}

function isEmptyObject(o: JsonObject): boolean {
  for (const _ in o) return false;
  return true;
}

/** Compiled regexes by source, shared by every stream (bounded: past it, compile without caching). */
const compiled = new Map<string, RegExp>();
const MAX_COMPILED = 256;

function compile(source: string): RegExp {
  let re = compiled.get(source);
  if (re === undefined) {
    re = new RegExp(source);
    if (compiled.size < MAX_COMPILED) compiled.set(source, re);
  }
  return re;
}

/** Templates kept per stream and dialect; the most recently matched is tried first. */
const MAX_TEMPLATES = 8;
/** Learned templates that did not match their own text (another formatting) before learning stops. */
const MAX_FAILED_LEARNS = 16;
/**
 * Past this many learned templates, learning stops unless templates earn
 * their keep (HIT_RATIO matches per template learned): a stream whose layout
 * changes on every payload would otherwise build a regex per frame.
 */
const LEARN_BUDGET = 32;
const HIT_RATIO = 16;

/**
 * The templates one stream learned (payload or event templates), most
 * recently matched first, and the budget that stops learning when they do
 * not pay.
 */
export class LearnedTemplates<T> {
  list: T[] = [];
  private failed = 0;
  private learned = 0;
  private hits = 0;

  /** True while learning is worth trying. */
  get learning(): boolean {
    return this.failed < MAX_FAILED_LEARNS;
  }

  /** list[i] matched: it goes first. */
  hit(i: number): void {
    this.hits++;
    if (i > 0) {
      const list = this.list;
      const t = list[i]!;
      list.splice(i, 1);
      list.unshift(t);
    }
  }

  /** A learned template did not match the text it was learned from. */
  miss(): void {
    this.failed++;
  }

  add(t: T): void {
    if (this.list.length >= MAX_TEMPLATES) this.list.pop();
    this.list.unshift(t);
    if (++this.learned >= LEARN_BUDGET && this.hits < this.learned * HIT_RATIO) this.failed = MAX_FAILED_LEARNS;
  }

  clear(): void {
    this.list = [];
    this.failed = 0;
    this.learned = 0;
    this.hits = 0;
  }
}

/** The payload a template just recognised: its kind and fields (valid until the next match). */
export interface TemplateMatch {
  readonly kind: number;
  /** Field f as a number; undefined when the payload had no such field. */
  int(f: number): number | undefined;
  /** Field f as a string (escapes decoded); undefined when the payload had no such field. */
  str(f: number): string | undefined;
  /** Field f's JSON text (a value captured whole); undefined when the payload had no such field. */
  json(f: number): string | undefined;
  /** True when the payload has string field f and it is not empty (read without decoding it). */
  filled(f: number): boolean;
  /**
   * String field f as it is on the wire, escapes undecoded, one character per
   * byte of valid UTF-8, when the match can give it that way (an SSE event
   * template reading a chunk for a consumer that takes wire bytes); else
   * undefined, and str is the way to read it.
   */
  raw(f: number): string | undefined;
  /**
   * String field f's JSON string body as the payload has it, escapes
   * undecoded, when the match holds it as text (a consumer that writes JSON
   * then need not escape the decoded string again); else undefined.
   */
  body(f: number): string | undefined;
}

/** See TemplateMatch.filled (an empty JSON string body is the only one that decodes to ''). */
export function readFilled(m: RegExpExecArray | null, groups: readonly number[], f: number): boolean {
  const g = groups[f];
  return g !== undefined && g !== 0 && m![g]!.length > 0;
}

/** Capture f of the last match as it is (a string field's JSON body, escapes undecoded); undefined when the payload had no such field. */
export function readCapture(m: RegExpExecArray | null, groups: readonly number[], f: number): string | undefined {
  const g = groups[f];
  return g === undefined || g === 0 ? undefined : m![g];
}

/** The templates of one stream, and the reader of the last match. */
export class TemplateStore implements TemplateMatch {
  private readonly learned = new LearnedTemplates<Template>();
  private m: RegExpExecArray | null = null;
  private groups: readonly number[] = [];
  kind = 0;
  /** The template of the last match (event templates are made from it). */
  last: Template | null = null;

  /** Recognises `text` with one of the templates; false when none matches. */
  match(text: string): boolean {
    const list = this.learned.list;
    if (list.length === 0 || text.length > MAX_TEMPLATE_TEXT) return false;
    for (let i = 0; i < list.length; i++) {
      const t = list[i]!;
      const m = t.re.exec(text);
      if (m === null) continue;
      this.learned.hit(i);
      this.m = m;
      this.groups = t.groups;
      this.kind = t.kind;
      this.last = t;
      return true;
    }
    return false;
  }

  /** Field f of the last match as a number; undefined when the template has no such field. */
  int(f: number): number | undefined {
    const g = this.groups[f];
    return g === undefined || g === 0 ? undefined : Number(this.m![g]);
  }

  /** Field f of the last match as JSON text (a `json` field: valid JSON by construction); undefined when absent. */
  json(f: number): string | undefined {
    const g = this.groups[f];
    return g === undefined || g === 0 ? undefined : this.m![g];
  }

  /** Field f of the last match as a string (escapes decoded); undefined when absent. */
  str(f: number): string | undefined {
    const g = this.groups[f];
    if (g === undefined || g === 0) return undefined;
    const s = this.m![g]!;
    const b = s.indexOf('\\');
    return b === -1 ? s : unescapeJson(s, b);
  }

  filled(f: number): boolean {
    return readFilled(this.m, this.groups, f);
  }

  /** (A payload's text is decoded already.) */
  raw(): undefined {
    return undefined;
  }

  body(f: number): string | undefined {
    return readCapture(this.m, this.groups, f);
  }

  /** Adds a template learned from `text`'s parsed payload, if it matches `text` itself. */
  learn(template: Template | null, text: string): void {
    if (template === null || !this.learned.learning || text.length > MAX_TEMPLATE_TEXT) return;
    for (const t of this.learned.list) if (t.re === template.re) return;
    if (!template.re.test(text)) this.learned.miss();
    else this.learned.add(template);
  }

  /** True while learning is worth trying. */
  get learning(): boolean {
    return this.learned.learning;
  }

  clear(): void {
    this.learned.clear();
    this.m = null;
    this.last = null;
  }
}
