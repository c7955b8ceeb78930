/**
 * UTF-8 decoding that notices invalid bytes. Decoding already replaces them
 * with U+FFFD; checking the decoded string for U+FFFD is a native scan, and
 * only then are the bytes validated (a genuine U+FFFD is valid UTF-8).
 */
import { alloc, decodeValid, isUtf8, latin1 as latin1Of, natives, utf8 as utf8Of, writeLatin1 } from '../bytes/index.js';

/** True when buf[start, end) decoded to `text` through replacement of invalid bytes. */
export function replacedInvalidUtf8(text: string, buf: Uint8Array, start: number, end: number): boolean {
  return text.indexOf('\uFFFD') !== -1 && !isUtf8(buf.subarray(start, end));
}

/** Bytes from which a span is checked for valid UTF-8 to be decoded by decodeValid (its own threshold for the faster decoder). */
const LONG = 1024;

/**
 * buf[start, end) as UTF-8. On Node, Buffer#utf8Slice without toString's
 * wrapper (see lib/bytes/node.ts), but a long span that is valid UTF-8 goes to
 * decodeValid: V8's decoder takes two-byte text a byte at a time, and the
 * validity check costs far less than it saves (long events that repeat a
 * whole multilingual answer, long JSON array elements).
 */
export const utf8: (buf: Uint8Array, start: number, end: number) => string =
  natives.name === 'node'
    ? (buf, start, end) => {
        if (end - start > LONG) {
          const span = buf.subarray(start, end);
          if (isUtf8(span)) return decodeValid(span);
        }
        return utf8Of(buf, start, end);
      }
    : utf8Of;

/** buf[start, end) as latin1, one character per byte (the SSE event templates' view of a chunk). */
export const latin1: (buf: Uint8Array, start: number, end: number) => string = latin1Of;

/** A character of the latin1 view that stands for a byte above 0x7F. */
export const HIGH_BYTE = /[\x80-\xff]/;

/** A string of the latin1 view (one character per byte) of valid UTF-8 bytes, decoded as UTF-8. */
export function latin1ToUtf8(s: string): string {
  if (!HIGH_BYTE.test(s)) return s;
  const bytes = alloc(s.length, true);
  return utf8Of(bytes, 0, writeLatin1(bytes, s, 0));
}
