/**
 * Input normalisation shared by the framers: every chunk becomes bytes, a
 * view of its own (no copy; a Buffer view on Node, see lib/bytes/).
 */
import { concat, copy, view } from '../bytes/index.js';
import { ChunkTypeError } from '../errors.js';

export type Chunk = Uint8Array | string;

/** Throws a ChunkTypeError for anything else (a source of objects, numbers or ArrayBuffers). */
export function toBytes(chunk: Chunk): Uint8Array {
  if (typeof chunk !== 'string' && !ArrayBuffer.isView(chunk)) throw new ChunkTypeError(chunk);
  return view(chunk);
}

/** Joins pending fragments and the head of the current chunk into one array (one copy, once per completed item). */
export function joinFragments(fragments: Uint8Array[], tail: Uint8Array): Uint8Array {
  if (fragments.length === 0) return tail;
  fragments.push(tail);
  const joined = concat(fragments);
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
  take(buf: Uint8Array): Uint8Array;
  flush(): Uint8Array;
  /** Bytes dropped (3 when a BOM was stripped). */
  readonly stripped: number;
}

export function createBomStripper(): BomStripper {
  let decided = false;
  let head: Uint8Array | null = null;
  // (`stripped` a data field, not a getter: see normalizer.ts)
  const self: BomStripper & { stripped: number } = {
    stripped: 0,
    take(buf) {
      if (decided) return buf;
      if (head !== null) {
        buf = concat([head, buf]);
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
        head = copy(buf);
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
/** One shared zero-length array (nothing can be written into it). */
export const EMPTY_BUFFER: Uint8Array = view(new Uint8Array(0));
