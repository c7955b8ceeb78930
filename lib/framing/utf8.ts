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
