/**
 * The byte operations the framers, the fast path and the accumulators use,
 * over plain Uint8Array: one implementation on Node's Buffer natives (node.ts),
 * one on TextDecoder/TextEncoder and typed arrays (web.ts). Both give the same
 * results (test/bytes/natives.test.ts); index.ts picks one at load.
 */
export interface ByteNatives {
  readonly name: 'node' | 'web';
  /** Bytes as they are (a view, no copy; on Node a Buffer view); a string as its UTF-8 bytes. */
  view(chunk: Uint8Array | string): Uint8Array;
  /** A copy that owns its memory. */
  copy(bytes: Uint8Array): Uint8Array;
  concat(list: readonly Uint8Array[]): Uint8Array;
  /** `size` bytes, contents unspecified (scratch memory); `pooled`: a small one that may share a slab. */
  alloc(size: number, pooled?: boolean): Uint8Array;
  /** bytes[start, end) decoded as UTF-8, invalid sequences replaced by U+FFFD, a BOM kept. */
  utf8(bytes: Uint8Array, start: number, end: number): string;
  /** bytes[start, end) one character per byte (ISO-8859-1, not windows-1252). */
  latin1(bytes: Uint8Array, start: number, end: number): string;
  isUtf8(bytes: Uint8Array): boolean;
  isAscii(bytes: Uint8Array): boolean;
  /** UTF-8 bytes of `text` (a lone surrogate counts 3, as U+FFFD). */
  byteLength(text: string): number;
  /** Lenient base64 (standard or URL alphabet, padding optional, other characters skipped), as Buffer reads it. */
  base64(text: string): Uint8Array;
  /** Writes `text` (characters up to U+00FF) one byte per character at `at`; returns bytes written. */
  writeLatin1(bytes: Uint8Array, text: string, at: number): number;
  /** Writes `text` as UTF-8 at `at` (room must suffice); returns bytes written. */
  writeUtf8(bytes: Uint8Array, text: string, at: number): number;
  /** Valid UTF-8 bytes decoded, the fastest way for long texts. */
  decodeValid(bytes: Uint8Array): string;
  /**
   * UTF-16 code units kept in a byte buffer (long two-byte texts, see
   * accumulate/text.ts): Node only, null where the runtime has no native for it.
   */
  readonly units: UnitNatives | null;
}

export interface UnitNatives {
  /** Writes `text` as UTF-16LE at `at`; returns bytes written. */
  write(bytes: Uint8Array, text: string, at: number): number;
  /** bytes[start, end) read as UTF-16LE. */
  read(bytes: Uint8Array, start: number, end: number): string;
}
