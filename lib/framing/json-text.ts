/**
 * JSON string bodies read straight from the wire text, without JSON.parse:
 * the raw-text fast path (lib/fast/) captures them with a regex that admits
 * only valid JSON strings, and reads them back with these.
 */
import { latin1ToUtf8 } from './utf8.js';

/** JSON's whitespace: space, line feed, carriage return, tab. */
export function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The value of hex digit character code (or byte) c, or -1. */
export function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x57 : -1;
}

/**
 * The value of a JSON string body whose every backslash starts a valid
 * escape (as a template regex admits it), as JSON.parse would give it:
 * cheaper than parsing the quoted literal, which copies it twice.
 */
export function unescapeJson(s: string, first = s.indexOf('\\')): string {
  let out = '';
  let from = 0;
  // (`first`: where the caller already found the first backslash)
  for (let b = first; ; b = s.indexOf('\\', from)) {
    if (b === -1) return from === 0 ? s : out + s.slice(from);
    out += s.slice(from, b);
    const c = s.charCodeAt(b + 1);
    from = b + 2;
    switch (c) {
      case 0x6e: // n
        out += '\n';
        break;
      case 0x22: // "
        out += '"';
        break;
      case 0x5c: // \
        out += '\\';
        break;
      case 0x74: // t
        out += '\t';
        break;
      case 0x72: // r
        out += '\r';
        break;
      case 0x2f: // /
        out += '/';
        break;
      case 0x62: // b
        out += '\b';
        break;
      case 0x66: // f
        out += '\f';
        break;
      case 0x75: // u: exactly four hex digits
        out += String.fromCharCode(parseInt(s.slice(from, from + 4), 16));
        from += 4;
        break;
      default:
        // unreachable for a body with valid escapes; JSON.parse decides (and throws) like the parse path would
        return JSON.parse('"' + s + '"') as string;
    }
  }
}

/**
 * A JSON string body in the latin1 view of valid UTF-8 bytes (one character
 * per byte, escapes undecoded, as a wire-byte capture gives it), as
 * JSON.parse would give it.
 */
export function decodeWireBody(s: string): string {
  const text = latin1ToUtf8(s);
  const b = text.indexOf('\\');
  return b === -1 ? text : unescapeJson(text, b);
}
