/**
 * UTF-8 decoding that notices invalid bytes. Buffer#toString already replaces
 * them with U+FFFD; checking the decoded string for U+FFFD is a native scan,
 * and only then are the bytes validated (a genuine U+FFFD is valid UTF-8).
 */
import { isUtf8 } from 'node:buffer';

/** True when buf[start, end) decoded to `text` through replacement of invalid bytes. */
export function replacedInvalidUtf8(text: string, buf: Buffer, start: number, end: number): boolean {
  return text.indexOf('\uFFFD') !== -1 && !isUtf8(buf.subarray(start, end));
}

/**
 * buf.toString('utf8', start, end) without its JavaScript wrapper (its
 * argument checks and switch on the encoding show in framing small payloads).
 * Buffer#utf8Slice is the native method toString dispatches to; it has been
 * on Buffer.prototype since Node 0.x. Falls back to toString if absent.
 */
type Utf8Sliceable = Buffer & { utf8Slice?: (start: number, end: number) => string };
const nativeSlice = (Buffer.prototype as Utf8Sliceable).utf8Slice;

export const utf8: (buf: Buffer, start: number, end: number) => string =
  typeof nativeSlice === 'function'
    ? (buf, start, end) => (start === end ? '' : nativeSlice.call(buf, start, end))
    : (buf, start, end) => buf.toString('utf8', start, end);

type Latin1Sliceable = Buffer & { latin1Slice?: (start: number, end: number) => string };
const nativeLatin1 = (Buffer.prototype as Latin1Sliceable).latin1Slice;

/** buf[start, end) as latin1, one character per byte (the SSE event templates' view of a chunk); same shortcut as `utf8`. */
export const latin1: (buf: Buffer, start: number, end: number) => string =
  typeof nativeLatin1 === 'function'
    ? (buf, start, end) => (start === end ? '' : nativeLatin1.call(buf, start, end))
    : (buf, start, end) => buf.toString('latin1', start, end);

/** A character of the latin1 view that stands for a byte above 0x7F. */
export const HIGH_BYTE = /[\x80-\xff]/;

/** A string of the latin1 view (one character per byte) of valid UTF-8 bytes, decoded as UTF-8. */
export function latin1ToUtf8(s: string): string {
  return HIGH_BYTE.test(s) ? Buffer.from(s, 'latin1').toString('utf8') : s;
}
