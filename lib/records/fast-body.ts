/**
 * A record line's text capture taken from the line's bytes: the top-level
 * member `"<body field>": "<JSON string>"` is unescaped straight into UTF-8
 * bytes, and only the rest of the line (that member cut out) is decoded and
 * parsed. The ordinary path decodes the whole line to a string (two-byte as
 * soon as one character is past U+00FF), parses it, and encodes the body
 * back to UTF-8: three passes over a capture of a megabyte or more, which
 * took longer than reading the capture.
 *
 * Same result as the ordinary path or nothing: anything this does not take
 * plainly (not valid UTF-8, a BOM, a key with an escape, the field twice, a
 * lone surrogate or a control character in the body, a line that is not one
 * JSON object) gives null, and the ordinary path answers, errors included.
 */
import { isUtf8 } from '../bytes/index.js';
import { hexDigit, isJsonSpace } from '../framing/json-text.js';

export interface SplitBody {
  /** The line without the body member: still a JSON object's text, as bytes. */
  rest: Uint8Array;
  /** The body's text as UTF-8, what Buffer.from(JSON.parse(line)[field], 'utf8') gives. */
  body: Buffer;
}

/** Bytes from which the fast path is worth its scan (shorter lines: the ordinary path is cheap). */
export const FAST_BODY_MIN = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length && isJsonSpace(b[i]!)) i++;
  return i;
}

/** The index after the string starting at b[i] (a quote), or -1 when it does not end. */
function skipString(b: Uint8Array, i: number): number {
  for (;;) {
    const q = b.indexOf(QUOTE, i + 1);
    if (q === -1) return -1;
    // escaped when an odd number of backslashes precede it
    let n = 0;
    while (b[q - 1 - n] === BACKSLASH) n++;
    if ((n & 1) === 0) return q + 1;
    i = q;
  }
}

/** The index after the value starting at b[i] (no validation beyond its extent: JSON.parse of the rest does that), or -1. */
function skipValue(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const d = b[j];
      if (d === QUOTE) {
        j = skipString(b, j);
        if (j === -1) return -1;
        j--;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < b.length && b[j] !== 0x2c && b[j] !== 0x7d && b[j] !== 0x5d && !isJsonSpace(b[j]!)) j++;
  return j === i ? -1 : j;
}

/** The four hex digits at b[i…] as a number, or -1. */
function hex4(b: Uint8Array, i: number): number {
  if (i + 4 > b.length) return -1;
  const d0 = hexDigit(b[i]!), d1 = hexDigit(b[i + 1]!), d2 = hexDigit(b[i + 2]!), d3 = hexDigit(b[i + 3]!);
  return (d0 | d1 | d2 | d3) < 0 ? -1 : (d0 << 12) | (d1 << 8) | (d2 << 4) | d3;
}

/** A JSON string's text as UTF-8, and the index after its closing quote. */
interface Unescaped {
  bytes: Buffer;
  end: number;
}

/**
 * The UTF-8 of the JSON string starting at b[start] (its opening quote), read
 * to its closing quote, or null for what the ordinary path must judge.
 */
function unescape(b: Uint8Array, start: number): Unescaped | null {
  // (no longer than the rest of the line: an escape is never shorter than what it stands for)
  const out = Buffer.allocUnsafeSlow(b.length - start);
  let w = 0;
  for (let i = start + 1; i < b.length; ) {
    const c = b[i]!;
    if (c !== BACKSLASH) {
      if (c === QUOTE) return { bytes: out.subarray(0, w), end: i + 1 };
      if (c < 0x20) return null; // JSON.parse rejects it
      out[w++] = c;
      i++;
      continue;
    }
    const e = b[i + 1];
    i += 2;
    if (e === 0x6e) out[w++] = 0x0a;
    else if (e === QUOTE || e === BACKSLASH || e === 0x2f) out[w++] = e;
    else if (e === 0x74) out[w++] = 0x09;
    else if (e === 0x72) out[w++] = 0x0d;
    else if (e === 0x62) out[w++] = 0x08;
    else if (e === 0x66) out[w++] = 0x0c;
    else if (e === 0x75) {
      let cp = hex4(b, i);
      if (cp < 0) return null;
      i += 4;
      if (cp >= 0xd800 && cp <= 0xdfff) {
        // a pair, or (lone) what the ordinary path turns into U+FFFD
        if (cp > 0xdbff || b[i] !== BACKSLASH || b[i + 1] !== 0x75) return null;
        const lo = hex4(b, i + 2);
        if (lo < 0xdc00 || lo > 0xdfff) return null;
        i += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
      }
      if (cp < 0x80) out[w++] = cp;
      else if (cp < 0x800) {
        out[w++] = 0xc0 | (cp >> 6);
        out[w++] = 0x80 | (cp & 0x3f);
      } else if (cp < 0x10000) {
        out[w++] = 0xe0 | (cp >> 12);
        out[w++] = 0x80 | ((cp >> 6) & 0x3f);
        out[w++] = 0x80 | (cp & 0x3f);
      } else {
        out[w++] = 0xf0 | (cp >> 18);
        out[w++] = 0x80 | ((cp >> 12) & 0x3f);
        out[w++] = 0x80 | ((cp >> 6) & 0x3f);
        out[w++] = 0x80 | (cp & 0x3f);
      }
    } else return null;
  }
  return null; // the string does not end
}

/** Splits the member `"<field>": "…"` out of the record line `line`; null: leave the line to the ordinary path. */
export function splitBody(line: Uint8Array, field: string): SplitBody | null {
  if (line.length < FAST_BODY_MIN || !isUtf8(line)) return null;
  const key = Buffer.from(field, 'utf8');
  let i = skipSpace(line, 0);
  if (line[i] !== 0x7b) return null;
  i = skipSpace(line, i + 1);
  let found: { from: number; to: number; body: Buffer } | null = null;
  /** Where the previous member's comma is (the body member is cut with one comma beside it). */
  let comma = -1;
  if (line[i] === 0x7d) return null;
  for (;;) {
    const memberStart = i;
    if (line[i] !== QUOTE) return null;
    const keyEnd = skipString(line, i);
    if (keyEnd === -1) return null;
    // (a key spelled with an escape is not taken for it: the caller sends a line whose rest still names a capture field the ordinary way)
    const isBody = keyEnd - i - 2 === key.length && Buffer.compare(key, line.subarray(i + 1, keyEnd - 1)) === 0;
    i = skipSpace(line, keyEnd);
    if (line[i] !== 0x3a) return null;
    i = skipSpace(line, i + 1);
    let valueEnd: number;
    if (isBody) {
      if (found !== null || line[i] !== QUOTE) return null; // twice (JSON.parse keeps the last), or not a string
      const body = unescape(line, i);
      if (body === null) return null;
      valueEnd = body.end;
      found = { from: comma === -1 ? memberStart : comma, to: valueEnd, body: body.bytes };
    } else {
      valueEnd = skipValue(line, i);
      if (valueEnd === -1) return null;
    }
    i = skipSpace(line, valueEnd);
    if (line[i] === 0x2c) {
      // the body member first: cut it with the comma after it
      if (found !== null && found.to === valueEnd && comma === -1) found.to = i + 1;
      comma = i;
      i = skipSpace(line, i + 1);
      continue;
    }
    if (line[i] !== 0x7d) return null;
    if (skipSpace(line, i + 1) !== line.length) return null;
    break;
  }
  if (found === null) return null;
  const rest = Buffer.allocUnsafe(line.length - (found.to - found.from));
  rest.set(line.subarray(0, found.from), 0);
  rest.set(line.subarray(found.to), found.from);
  return { rest, body: found.body };
}
