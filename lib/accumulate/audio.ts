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

/** The `rate=` parameter of a MIME type (`audio/L16;codec=pcm;rate=24000`), when it is a positive integer. */
export function rateOf(mimeType: string | null): number | undefined {
  if (mimeType === null) return undefined;
  const m = /;\s*rate\s*=\s*"?(\d{1,9})"?\s*(?:;|$)/i.exec(mimeType);
  const n = m === null ? 0 : Number(m[1]);
  return n > 0 ? n : undefined;
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
    if (!this.seen) return null;
    const sampleRate = rateOf(this.mimeType);
    return sampleRate === undefined ? { mimeType: this.mimeType, bytes: this.bytes } : { mimeType: this.mimeType, sampleRate, bytes: this.bytes };
  }

  reset(): void {
    this.seen = false;
    this.mimeType = null;
    this.bytes = 0;
  }
}
