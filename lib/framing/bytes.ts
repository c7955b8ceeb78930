/** Input normalisation shared by the framers: every chunk becomes a Buffer view (no copy for bytes). */
import { ChunkTypeError } from '../errors.js';

export type Chunk = Uint8Array | string;

/** Throws a ChunkTypeError for anything else (a source of objects, numbers or ArrayBuffers). */
export function toBuffer(chunk: Chunk): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (Buffer.isBuffer(chunk)) return chunk;
  if (!ArrayBuffer.isView(chunk)) throw new ChunkTypeError(chunk);
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Joins pending fragments and the head of the current chunk into one Buffer (one copy, once per completed item). */
export function joinFragments(fragments: Buffer[], tail: Buffer): Buffer {
  if (fragments.length === 0) return tail;
  fragments.push(tail);
  const joined = Buffer.concat(fragments);
  fragments.length = 0;
  return joined;
}

export const DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024;

/**
 * Strips one UTF-8 BOM at the very start of a stream, even when the first
 * chunks are shorter than the BOM. `take` returns the bytes to process now
 * (possibly empty); `flush` returns bytes still held back at end of input.
 */
export interface BomStripper {
  take(buf: Buffer): Buffer;
  flush(): Buffer;
  /** Bytes dropped (3 when a BOM was stripped). */
  readonly stripped: number;
}

export function createBomStripper(): BomStripper {
  let decided = false;
  let head: Buffer | null = null;
  // (`stripped` a data field, not a getter: see normalizer.ts)
  const self: BomStripper & { stripped: number } = {
    stripped: 0,
    take(buf) {
      if (decided) return buf;
      if (head !== null) {
        buf = Buffer.concat([head, buf]);
        head = null;
      }
      const n = Math.min(buf.length, 3);
      for (let i = 0; i < n; i++) {
        if (buf[i] !== BOM[i]) {
          decided = true;
          return buf;
        }
      }
      if (buf.length < 3) {
        head = Buffer.from(buf);
        return EMPTY_BUFFER;
      }
      decided = true;
      self.stripped = 3;
      return buf.subarray(3);
    },
    flush() {
      decided = true;
      const h = head ?? EMPTY_BUFFER;
      head = null;
      return h;
    },
  };
  return self;
}

const BOM = [0xef, 0xbb, 0xbf];
/** One shared zero-length Buffer (nothing can be written into it). */
export const EMPTY_BUFFER = Buffer.alloc(0);
