/**
 * UTF-8 decoding that notices invalid bytes. Decoding already replaces them
 * with U+FFFD; checking the decoded string for U+FFFD is a native scan, and
 * only then are the bytes validated (a genuine U+FFFD is valid UTF-8).
 */
import { alloc, isUtf8, latin1 as latin1Of, utf8 as utf8Of, writeLatin1 } from '../bytes/index.js';

/** True when buf[start, end) decoded to `text` through replacement of invalid bytes. */
export function replacedInvalidUtf8(text: string, buf: Uint8Array, start: number, end: number): boolean {
  return text.indexOf('\uFFFD') !== -1 && !isUtf8(buf.subarray(start, end));
}

/** buf[start, end) as UTF-8 (on Node, Buffer#utf8Slice without toString's wrapper: see lib/bytes/node.ts). */
export const utf8: (buf: Uint8Array, start: number, end: number) => string = utf8Of;

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
