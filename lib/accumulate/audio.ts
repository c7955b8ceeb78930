/** Audio of one response: counted, not kept (the deltas themselves carry the data). */
import type { FinalAudio } from './types.js';

/**
 * Decoded size of one base64 (or base64url) string, from its length and
 * padding, without decoding it. Unpadded input is handled too: a trailing
 * group of 2 or 3 characters holds 1 or 2 bytes. Assumes no embedded
 * whitespace (providers send none).
 */
export function base64DecodedBytes(data: string): number {
  let n = data.length;
  if (n > 0 && data.charCodeAt(n - 1) === 0x3d) {
    n--;
    if (n > 0 && data.charCodeAt(n - 1) === 0x3d) n--;
  }
  return Math.floor((n * 3) / 4);
}

export class AudioTotals {
  private seen = false;
  private mimeType: string | null = null;
  private bytes = 0;

  add(mimeType: string | null, data: string): void {
    this.seen = true;
    // The first delta that names a type: later deltas of a response repeat it or omit it.
    if (this.mimeType === null) this.mimeType = mimeType;
    this.bytes += base64DecodedBytes(data);
  }

  result(): FinalAudio | null {
    return this.seen ? { mimeType: this.mimeType, bytes: this.bytes } : null;
  }

  reset(): void {
    this.seen = false;
    this.mimeType = null;
    this.bytes = 0;
  }
}
