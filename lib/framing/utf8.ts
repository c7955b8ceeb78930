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

/** buf[start, end) as UTF-8, through decodeValid when it is over `min` bytes and valid (see utf8). */
function decoder(min: number): (buf: Uint8Array, start: number, end: number) => string {
  if (natives.name !== 'node') return utf8Of; // (decodeValid is the same TextDecoder there)
  return (buf, start, end) => {
    if (end - start > min) {
      const span = buf.subarray(start, end);
      if (isUtf8(span)) return decodeValid(span);
    }
    return utf8Of(buf, start, end);
  };
}

/**
 * buf[start, end) as UTF-8. On Node, Buffer#utf8Slice without toString's
 * wrapper (see lib/bytes/node.ts), but a span over 8 KiB that is valid UTF-8
 * goes to decodeValid: V8's decoder takes two-byte text a byte at a time, and
 * the validity check costs far less than it saves on a long event (a
 * Responses `*.done` repeating a multilingual answer). Not from decodeValid's
 * own 1 KiB: on the SSE templates' captures of 1–6 KB the check, the call and
 * its buffer cost more than they saved.
 */
export const utf8: (buf: Uint8Array, start: number, end: number) => string = decoder(8192);

/** utf8 from 1 KiB on: the JSON array's elements read from the bytes, where it saved (see json-scanner.ts). */
export const utf8Value: (buf: Uint8Array, start: number, end: number) => string = decoder(1024);

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
