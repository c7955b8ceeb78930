/**
 * The byte natives on web APIs only (TextDecoder, TextEncoder, typed arrays,
 * atob): browsers, workers, edge runtimes. Same results as node.ts.
 */
import type { ByteNatives } from './types.js';

// (ignoreBOM: a BOM inside a slice is text, as Buffer#toString keeps it; the stream's own BOM is stripped by the framers)
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
const strict = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });
const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);
/** Characters per String.fromCharCode call (its arguments go on the stack). */
const SPAN = 8192;

function latin1(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= SPAN) return String.fromCharCode(...bytes.subarray(start, end));
  const parts: string[] = [];
  for (let i = start; i < end; i += SPAN) parts.push(String.fromCharCode(...bytes.subarray(i, Math.min(end, i + SPAN))));
  return parts.join('');
}

function isAscii(bytes: Uint8Array): boolean {
  let or = 0;
  for (let i = 0; i < bytes.length; i++) or |= bytes[i]!;
  return or < 0x80;
}

function byteLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: 4 bytes for 2 units
      i++;
    } else n += 2; // 3 bytes (a lone surrogate becomes U+FFFD)
  }
  return n;
}

/** Base64 letters of either alphabet to their values; -1 for anything else. */
const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
B64[0x2d] = 62; // -
B64[0x5f] = 63; // _

function base64(text: string): Uint8Array {
  const out = new Uint8Array(Math.ceil((text.length * 3) / 4));
  let n = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3d) break; // '=': the end, as for Buffer
    const v = c < 128 ? B64[c]! : -1;
    if (v < 0) continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, n);
}

function concat(list: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const b of list) size += b.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const b of list) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

export const webNatives: ByteNatives = {
  name: 'web',
  view(chunk) {
    if (typeof chunk === 'string') return encoder.encode(chunk);
    if (chunk instanceof Uint8Array) return chunk;
    const v: ArrayBufferView = chunk; // another view (a DataView, an Int16Array): its bytes
    return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  },
  copy: (bytes) => bytes.slice(),
  concat,
  alloc: (size) => (size === 0 ? EMPTY : new Uint8Array(size)),
  utf8: (bytes, start, end) => (start === end ? '' : lenient.decode(bytes.subarray(start, end))),
  latin1,
  isUtf8(bytes) {
    if (isAscii(bytes)) return true;
    try {
      strict.decode(bytes);
      return true;
    } catch {
      return false;
    }
  },
  isAscii,
  byteLength,
  base64,
  writeLatin1(bytes, text, at) {
    for (let i = 0; i < text.length; i++) bytes[at + i] = text.charCodeAt(i);
    return text.length;
  },
  writeUtf8: (bytes, text, at) => encoder.encodeInto(text, bytes.subarray(at)).written,
  decodeValid: (bytes) => lenient.decode(bytes),
  units: null,
};
