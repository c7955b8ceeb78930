/**
 * The byte natives of this runtime, picked once at load: Node's Buffer
 * natives where the runtime has them (Node, Bun, Deno), web APIs elsewhere.
 * Everything above works on Uint8Array and calls these.
 */
import { nodeNatives } from './node.js';
import type { ByteNatives } from './types.js';
import { webNatives } from './web.js';

export type { ByteNatives, UnitNatives } from './types.js';

export const natives: ByteNatives = nodeNatives ?? webNatives;

export const {
  view,
  copy,
  concat,
  alloc,
  utf8,
  latin1,
  isUtf8,
  isAscii,
  byteLength,
  base64,
  writeLatin1,
  writeUtf8,
  decodeValid,
  units,
} = natives;
