/**
 * The byte natives on Node's Buffer (also where a runtime provides Buffer and
 * node:buffer: Bun, Deno). Nothing is imported: Buffer is the global, and
 * node:buffer's isUtf8/isAscii/transcode come from process.getBuiltinModule,
 * so a browser bundle holds no Node built-in and this module answers null there.
 */
import type { ByteNatives } from './types.js';

/** Buffer's native methods (toString/write dispatch to them; on Buffer.prototype since Node 0.x). */
interface NativeBuffer extends Buffer {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
  ucs2Slice(start: number, end: number): string;
  latin1Write(text: string, offset: number): number;
  utf8Write(text: string, offset: number): number;
  ucs2Write(text: string, offset: number): number;
}

/** What is used of node:buffer. */
interface NodeBufferModule {
  isUtf8(bytes: Uint8Array): boolean;
  isAscii(bytes: Uint8Array): boolean;
  transcode(bytes: Uint8Array, from: 'utf8', to: 'ucs2'): Buffer;
}

interface NodeGlobals {
  Buffer?: typeof Buffer;
  process?: { getBuiltinModule?: (id: string) => unknown };
}

const globals: NodeGlobals = globalThis;

function load(): ByteNatives | null {
  const B = globals.Buffer;
  const mod = globals.process?.getBuiltinModule?.('node:buffer') as NodeBufferModule | undefined;
  if (typeof B !== 'function' || mod === undefined || typeof mod.isUtf8 !== 'function' || typeof mod.isAscii !== 'function') return null;
  const { isUtf8, isAscii, transcode } = mod;
  const proto = B.prototype as NativeBuffer;
  const buffer = (bytes: Uint8Array): NativeBuffer =>
    (B.isBuffer(bytes) ? bytes : B.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as NativeBuffer;
  /** A native method called directly (its JavaScript wrapper's checks and encoding switch show on small payloads), else toString. */
  const slice = (native: ((this: NativeBuffer, s: number, e: number) => string) | undefined, encoding: 'utf8' | 'latin1') =>
    typeof native === 'function'
      ? (bytes: Uint8Array, start: number, end: number) => (start === end ? '' : native.call(bytes as NativeBuffer, start, end))
      : (bytes: Uint8Array, start: number, end: number) => buffer(bytes).toString(encoding, start, end);
  const ucs2Write = proto.ucs2Write;
  const ucs2Slice = proto.ucs2Slice;
  const SHORT_UTF8 = 1024;
  const utf8 = slice(proto.utf8Slice, 'utf8');
  const latin1 = slice(proto.latin1Slice, 'latin1');
  return {
    name: 'node',
    view(chunk) {
      if (typeof chunk === 'string') return B.from(chunk, 'utf8');
      return buffer(chunk);
    },
    copy: (bytes) => B.from(bytes),
    concat: (list) => B.concat(list),
    alloc: (size, pooled) => (pooled === true ? B.allocUnsafe(size) : B.allocUnsafeSlow(size)),
    utf8,
    latin1,
    isUtf8,
    isAscii,
    byteLength: (text) => B.byteLength(text, 'utf8'),
    base64: (text) => B.from(text, 'base64'),
    writeLatin1: (bytes, text, at) => (bytes as NativeBuffer).latin1Write(text, at),
    writeUtf8: (bytes, text, at) => (bytes as NativeBuffer).utf8Write(text, at),
    decodeValid(bytes) {
      if (isAscii(bytes)) return latin1(bytes, 0, bytes.length);
      // (transcode converts with simdutf on Node 20.20, into a buffer, then one copy: faster than utf8Slice on
      // two-byte text, which V8 decodes a byte at a time; a call has a fixed cost, more than a short text takes)
      if (bytes.length <= SHORT_UTF8 || typeof transcode !== 'function') return utf8(bytes, 0, bytes.length);
      const units = transcode(bytes, 'utf8', 'ucs2') as NativeBuffer;
      return units.ucs2Slice(0, units.length);
    },
    units:
      typeof ucs2Write === 'function' && typeof ucs2Slice === 'function'
        ? {
            write: (bytes, text, at) => ucs2Write.call(bytes as NativeBuffer, text, at),
            read: (bytes, start, end) => ucs2Slice.call(bytes as NativeBuffer, start, end),
          }
        : null,
  };
}

/** Null where the runtime has no Buffer or node:buffer (browsers, workers, edge runtimes). */
export const nodeNatives: ByteNatives | null = load();
