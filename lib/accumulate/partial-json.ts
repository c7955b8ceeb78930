/**
 * Incremental partial-JSON parser for streamed tool arguments.
 *
 * Each character is examined exactly once, whatever the fragment boundaries:
 * the value tree is built in place as characters arrive (a stack of open
 * containers; the open string grows by slices, not per character), so feeding
 * n characters in any number of fragments costs O(n), and `value()` is O(1)
 * apart from converting an open number.
 *
 * `value()` returns the best-effort value so far:
 * - open objects and arrays as they stand (closed, in JS terms);
 * - an unfinished string with what it holds so far (an escape cut by a
 *   fragment boundary is left out until it completes; `\uXXXX` escapes are
 *   decoded one code unit at a time, so a surrogate pair split across
 *   fragments joins up when its second half arrives);
 * - an unfinished number as its longest valid prefix (`-` alone, `1.` → 1,
 *   `1e` → 1, `1e-` → 1);
 * - a member whose value has not started (`{"a":`) or whose key is unfinished
 *   is omitted, and so is a partial literal (`tr`, `nul`);
 * - `undefined` until a value has started.
 *
 * The returned tree is LIVE: later writes mutate it in place (that is what
 * makes `value()` cheap). Do not mutate it; `structuredClone` it to keep a
 * snapshot.
 */
import type { Json, JsonObject } from '../events.js';
import { hexDigit, isJsonSpace } from '../framing/json-text.js';

export interface PartialJson {
  /** Feeds the next fragment. Ignored once `error` is set. */
  write(fragment: string): void;
  /** The best-effort value so far (a live tree, see above), or undefined. */
  value(): Json | undefined;
  /** A whole JSON value has been read (only whitespace may follow). */
  readonly complete: boolean;
  /** Why the text can no longer become valid JSON, or null. */
  readonly error: string | null;
  /** Characters examined so far: always the total length written before any error. */
  readonly scanned: number;
}

// Parser states.
const VALUE = 0; // a value is expected (top level, after ':', after ',' in an array)
const ARRAY_FIRST = 1; // after '[': a value or ']'
const KEY_FIRST = 2; // after '{': a key or '}'
const KEY = 3; // after ',' in an object: a key
const COLON = 4; // after a key
const AFTER = 5; // after a value inside a container: ',' or the closer
const STRING = 6; // inside a string (key or value)
const NUMBER = 7;
const LITERAL = 8;
const END = 9; // the top-level value is complete
const FAILED = 10;

// What the open scalar is.
const NONE = 0;
const STRING_VALUE = 1;
const KEY_STRING = 2;
const NUMBER_VALUE = 3;

// Number sub-states (JSON grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?).
const N_SIGN = 0; // after '-'
const N_ZERO = 1; // leading 0
const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_EXP = 5; // after e/E
const N_EXP_SIGN = 6; // after e+ / e-
const N_EXP_DIGITS = 7;

const LITERALS: Record<number, [string, Json]> = {
  0x74: ['true', true],
  0x66: ['false', false],
  0x6e: ['null', null],
};

/** Decoded value of a one-character escape (`\n` …), by the character after the backslash. */
const SIMPLE_ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

type Container = Json[] | JsonObject;


/** Sets a member like JSON.parse does: `__proto__` becomes an own property, not the prototype. */
function setMember(obj: JsonObject, key: string, value: Json): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

function describe(c: number): string {
  return JSON.stringify(String.fromCharCode(c));
}

class PartialJsonParser implements PartialJson {
  error: string | null = null;
  scanned = 0;

  private state = VALUE;
  private readonly stack: Container[] = [];
  private root: Json | undefined = undefined;
  /** Key of the member being read in the innermost object. */
  private pendingKey = '';

  // The open scalar (string, key or number) and the slot its value goes to.
  private scalar = NONE;
  private cur = '';
  private dirty = false;
  private slotParent: Container | null = null;
  private slotKey = '';
  private slotIndex = 0;
  // String escapes: 0 none, 1 after '\', 2 inside \uXXXX.
  private escape = 0;
  private hexLeft = 0;
  private hexCode = 0;
  // Numbers.
  private numState = N_SIGN;
  private numLength = 0;
  /** Length of the longest prefix of the number that is a valid number. */
  private numValid = 0;
  // Literals.
  private literal = '';
  private literalValue: Json = null;
  private literalPos = 0;

  get complete(): boolean {
    return this.state === END;
  }

  write(s: string): void {
    const len = s.length;
    let i = 0;
    while (i < len && this.state !== FAILED) {
      if (this.state === STRING) i = this.scanString(s, i, len);
      else if (this.state === NUMBER) i = this.scanNumber(s, i, len);
      else {
        const c = s.charCodeAt(i++);
        this.scanned++;
        this.step(c);
      }
    }
  }

  value(): Json | undefined {
    if (this.dirty) {
      this.dirty = false;
      if (this.scalar === STRING_VALUE) this.setSlot(this.cur);
      else if (this.scalar === NUMBER_VALUE && this.numValid > 0) this.setSlot(this.numberValue());
    }
    return this.root;
  }

  /** One structural character (everything but string and number bodies). */
  private step(c: number): void {
    switch (this.state) {
      case VALUE:
      case ARRAY_FIRST:
        if (isJsonSpace(c)) return;
        if (c === 0x5d && this.state === ARRAY_FIRST) return this.close();
        return this.startValue(c);
      case KEY_FIRST:
      case KEY:
        if (isJsonSpace(c)) return;
        if (c === 0x22) {
          this.scalar = KEY_STRING;
          this.cur = '';
          this.state = STRING;
          return;
        }
        if (c === 0x7d && this.state === KEY_FIRST) return this.close();
        return this.fail(`expected a key, found ${describe(c)}`);
      case COLON:
        if (isJsonSpace(c)) return;
        if (c === 0x3a) {
          this.state = VALUE;
          return;
        }
        return this.fail(`expected ':', found ${describe(c)}`);
      case AFTER: {
        if (isJsonSpace(c)) return;
        const inArray = Array.isArray(this.stack[this.stack.length - 1]);
        if (c === 0x2c) {
          this.state = inArray ? VALUE : KEY;
          return;
        }
        if (c === (inArray ? 0x5d : 0x7d)) return this.close();
        return this.fail(`expected ',' or '${inArray ? ']' : '}'}', found ${describe(c)}`);
      }
      case LITERAL:
        if (c !== this.literal.charCodeAt(this.literalPos)) {
          return this.fail(`invalid literal, found ${describe(c)}`);
        }
        if (++this.literalPos === this.literal.length) {
          this.place(this.literalValue);
          this.afterValue();
        }
        return;
      case END:
        if (isJsonSpace(c)) return;
        return this.fail(`unexpected ${describe(c)} after the JSON value`);
    }
  }

  private startValue(c: number): void {
    switch (c) {
      case 0x7b: {
        const obj: JsonObject = {};
        this.place(obj);
        this.stack.push(obj);
        this.state = KEY_FIRST;
        return;
      }
      case 0x5b: {
        const arr: Json[] = [];
        this.place(arr);
        this.stack.push(arr);
        this.state = ARRAY_FIRST;
        return;
      }
      case 0x22:
        this.scalar = STRING_VALUE;
        this.cur = '';
        this.openSlot();
        this.setSlot('');
        this.state = STRING;
        return;
      case 0x74:
      case 0x66:
      case 0x6e: {
        const [text, value] = LITERALS[c] as [string, Json];
        this.literal = text;
        this.literalValue = value;
        this.literalPos = 1;
        this.state = LITERAL;
        return;
      }
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.scalar = NUMBER_VALUE;
      this.cur = '';
      this.numState = N_SIGN;
      this.numLength = 0;
      this.numValid = 0;
      this.openSlot();
      this.numberChar(c);
      this.cur = String.fromCharCode(c);
      this.dirty = true;
      this.state = NUMBER;
      return;
    }
    this.fail(`expected a value, found ${describe(c)}`);
  }

  /** Reads string characters from `i`; returns where it stopped. */
  private scanString(s: string, i: number, len: number): number {
    let start = i;
    while (i < len) {
      const c = s.charCodeAt(i);
      if (this.escape === 0) {
        if (c === 0x22 || c === 0x5c) {
          if (i > start) this.cur += s.slice(start, i);
          this.scanned += i + 1 - start;
          i++;
          if (c === 0x22) {
            this.endString();
            return i;
          }
          this.escape = 1;
          start = i;
          continue;
        }
        if (c < 0x20) {
          if (i > start) this.cur += s.slice(start, i);
          this.scanned += i + 1 - start;
          this.dirty = true;
          this.fail('unescaped control character in a string');
          return i + 1;
        }
        i++;
        continue;
      }
      this.scanned++;
      i++;
      if (this.escape === 1) {
        if (c === 0x75) {
          this.escape = 2;
          this.hexLeft = 4;
          this.hexCode = 0;
        } else {
          const decoded = SIMPLE_ESCAPES[c];
          if (decoded === undefined) {
            this.fail(`invalid escape \\${String.fromCharCode(c)}`);
            return i;
          }
          this.cur += decoded;
          this.escape = 0;
        }
      } else {
        const h = hexDigit(c);
        if (h < 0) {
          this.fail(`invalid \\u escape, found ${describe(c)}`);
          return i;
        }
        this.hexCode = this.hexCode * 16 + h;
        if (--this.hexLeft === 0) {
          // One UTF-16 code unit: the halves of a surrogate pair join when concatenated.
          this.cur += String.fromCharCode(this.hexCode);
          this.escape = 0;
        }
      }
      start = i;
    }
    if (i > start) this.cur += s.slice(start, i);
    this.scanned += i - start;
    this.dirty = true;
    return i;
  }

  private endString(): void {
    if (this.scalar === KEY_STRING) {
      this.pendingKey = this.cur;
      this.state = COLON;
    } else {
      this.setSlot(this.cur);
      this.afterValue();
    }
    this.scalar = NONE;
    this.cur = '';
    this.dirty = false;
  }

  /** Reads number characters from `i`; the first non-number character ends it and is handled here too. */
  private scanNumber(s: string, i: number, len: number): number {
    const start = i;
    while (i < len) {
      const c = s.charCodeAt(i);
      this.scanned++;
      if (this.numberChar(c)) {
        i++;
        continue;
      }
      if (i > start) this.cur += s.slice(start, i);
      this.endNumber(c);
      return i + 1;
    }
    if (i > start) {
      this.cur += s.slice(start, i);
      this.dirty = true;
    }
    return i;
  }

  /** Advances the number grammar by one character; false when `c` cannot continue the number. */
  private numberChar(c: number): boolean {
    const digit = c >= 0x30 && c <= 0x39;
    let next: number;
    switch (this.numState) {
      case N_SIGN:
        if (this.numLength === 0 && c === 0x2d) next = N_SIGN;
        else if (c === 0x30) next = N_ZERO;
        else if (digit) next = N_INT;
        else return false;
        break;
      case N_ZERO:
      case N_INT:
        if (digit && this.numState === N_INT) next = N_INT;
        else if (c === 0x2e) next = N_DOT;
        else if (c === 0x65 || c === 0x45) next = N_EXP;
        else return false;
        break;
      case N_DOT:
      case N_FRAC:
        if (digit) next = N_FRAC;
        else if (c === 0x65 || c === 0x45) {
          if (this.numState === N_DOT) return false;
          next = N_EXP;
        } else return false;
        break;
      case N_EXP:
        if (c === 0x2b || c === 0x2d) next = N_EXP_SIGN;
        else if (digit) next = N_EXP_DIGITS;
        else return false;
        break;
      default: // N_EXP_SIGN, N_EXP_DIGITS
        if (digit) next = N_EXP_DIGITS;
        else return false;
    }
    this.numState = next;
    this.numLength++;
    if (next === N_ZERO || next === N_INT || next === N_FRAC || next === N_EXP_DIGITS) this.numValid = this.numLength;
    return true;
  }

  /** `c` ended the number: it must be a valid number, and `c` is then read as a structural character. */
  private endNumber(c: number): void {
    if (this.numValid !== this.numLength) {
      this.fail(`invalid number, found ${describe(c)}`);
      return;
    }
    this.setSlot(this.numberValue());
    this.scalar = NONE;
    this.cur = '';
    this.dirty = false;
    this.afterValue();
    this.step(c);
  }

  private numberValue(): number {
    return Number(this.numValid === this.cur.length ? this.cur : this.cur.slice(0, this.numValid));
  }

  /** Remembers where the open scalar goes (attached now for strings, at its first valid prefix for numbers). */
  private openSlot(): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.slotParent = null;
    } else {
      this.slotParent = top;
      if (Array.isArray(top)) this.slotIndex = top.length;
      else this.slotKey = this.pendingKey;
    }
  }

  private setSlot(value: Json): void {
    const parent = this.slotParent;
    if (parent === null) this.root = value;
    else if (Array.isArray(parent)) parent[this.slotIndex] = value;
    else setMember(parent, this.slotKey, value);
  }

  /** Attaches a container or a finished literal where the current value goes. */
  private place(value: Json): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) this.root = value;
    else if (Array.isArray(top)) top.push(value);
    else setMember(top, this.pendingKey, value);
  }

  private close(): void {
    this.stack.pop();
    this.afterValue();
  }

  private afterValue(): void {
    this.state = this.stack.length === 0 ? END : AFTER;
  }

  private fail(message: string): void {
    this.error = `${message} at character ${this.scanned - 1}`;
    this.state = FAILED;
  }
}

export function createPartialJson(): PartialJson {
  return new PartialJsonParser();
}
