/**
 * Framing auto-detection from the first non-blank byte: `[` → JSON array,
 * `{` → JSON values (NDJSON, and pretty-printed messages or error bodies that
 * span lines), anything else → SSE. Bytes are held until that byte arrives.
 */
import type { Frame } from '../events.js';
import type { Emit, Stage } from '../stage.js';
import { copy } from '../bytes/index.js';
import { toBytes, type Chunk } from './bytes.js';
import { createJsonScanner } from './json-scanner.js';
import { makeNdjsonFramer } from './ndjson.js';
import { resolveFramerOptions, type FramerOptions, type ResolvedFramerOptions } from './options.js';
import { OptionError } from '../errors.js';
import { makeSseFramer, type SseFramerOptions, type SseHooks } from './sse.js';

export type FramingName = 'sse' | 'json-array' | 'ndjson' | 'json-values';
export type FramingOption = FramingName | 'auto';

/** Every framing name, `auto` first (what the `framing` option accepts). */
export const FRAMING_OPTIONS: readonly FramingOption[] = ['auto', 'sse', 'json-array', 'ndjson', 'json-values'];

export type AnyFramerOptions = SseFramerOptions & FramerOptions;

/** The framer of a known framing. */
export function createFramer(framing: FramingName, options: AnyFramerOptions = {}): Stage<Chunk, Frame> {
  return makeFramer(framing, resolveFramerOptions(options));
}

/** The framer of a known framing from options already resolved (`hooks`: the fused stage's, for SSE). */
export function makeFramer(framing: FramingName, options: ResolvedFramerOptions, hooks?: SseHooks): Stage<Chunk, Frame> {
  switch (framing) {
    case 'sse':
      return makeSseFramer(options, hooks);
    case 'json-array':
      return createJsonScanner('array', options);
    case 'ndjson':
      return makeNdjsonFramer(options);
    case 'json-values':
      return createJsonScanner('values', options);
    default:
      throw new OptionError('framing', framing, `one of ${FRAMING_OPTIONS.slice(1).join(', ')}`);
  }
}

/**
 * Returns the framing for the first non-blank byte, or null when `buf` holds
 * only blanks (or BOM bytes). `streamOffset` is the offset of `buf` in the
 * stream: BOM bytes count as blank only in the first three bytes.
 */
export function detectFraming(buf: Uint8Array, streamOffset = 0): FramingName | null {
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) continue;
    if (streamOffset + i < 3 && b === BOM[streamOffset + i]) continue;
    if (b === 0x5b) return 'json-array';
    if (b === 0x7b) return 'json-values';
    return 'sse';
  }
  return null;
}

export interface AutoFramer extends Stage<Chunk, Frame> {
  /** The framing in use, once decided. */
  readonly framing: FramingName | null;
}

/** A framer that picks its framing from the first non-blank byte. */
export function createAutoFramer(options: AnyFramerOptions = {}, onDetect?: (f: FramingName) => void): AutoFramer {
  return makeAutoFramer(resolveFramerOptions(options), onDetect);
}

/** The auto framer from options already resolved (`hooks` go to the SSE framer if it picks SSE). */
export function makeAutoFramer(options: ResolvedFramerOptions, onDetect?: (f: FramingName) => void, hooks?: SseHooks): AutoFramer {
  const maxHeld = options.maxFrameBytes;
  let inner: Stage<Chunk, Frame> | null = null;
  const held: Uint8Array[] = [];
  let heldBytes = 0;

  function decide(name: FramingName, emit: Emit<Frame>): void {
    self.framing = name;
    inner = makeFramer(name, options, hooks);
    onDetect?.(name);
    for (const b of held.splice(0)) inner.push(b, emit);
  }

  // (`framing` a data field, not a getter: see normalizer.ts)
  const self: AutoFramer & { framing: FramingName | null } = {
    framing: null,
    push(chunk, emit) {
      if (inner !== null) return inner.push(chunk, emit);
      const buf = toBytes(chunk);
      const name = detectFraming(buf, heldBytes);
      held.push(copy(buf));
      heldBytes += buf.length;
      if (name !== null) decide(name, emit);
      else if (heldBytes > maxHeld) decide('sse', emit); // only blanks so far: SSE bounds them
    },
    end(emit) {
      if (inner === null) decide('sse', emit);
      inner!.end(emit);
    },
  };
  return self;
}

const BOM = [0xef, 0xbb, 0xbf];
