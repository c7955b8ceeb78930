/** Public framing stages as Transforms: bytes or strings in, Frame objects out. */
import type { Transform } from 'node:stream';
import { makeAutoFramer } from '../framing/detect.js';
import { resolveFramerOptions } from '../framing/options.js';
import { createJsonArrayFramer, type JsonArrayFramerOptions } from '../framing/json-array.js';
import { createJsonValuesFramer, type JsonValuesFramerOptions } from '../framing/json-values.js';
import type { FramerOptions } from '../framing/options.js';
import { makeSseFramer, type SseFramerOptions } from '../framing/sse.js';
import type { AnyFramerOptions } from '../framing/detect.js';
import { split2NdjsonFramer } from './ndjson-split2.js';
import { createHandoffFramer } from './framer-handoff.js';
import { byteStageTransform, type StageTransform, type TransformOptions } from './transform.js';
import type { Chunk } from '../framing/bytes.js';
import type { Frame } from '../events.js';
import { checkOptions } from '../options.js';
import { AUTO_FRAMER_OPTIONS, FRAMER_OPTIONS, SSE_FRAMER_OPTIONS } from './option-keys.js';

export type FramerTransform = StageTransform<Chunk, Frame>;

export function sseFramer(options: SseFramerOptions & TransformOptions = {}): FramerTransform {
  checkOptions(options, SSE_FRAMER_OPTIONS, 'sseFramer()');
  return byteStageTransform(createHandoffFramer((hook) => makeSseFramer(resolveFramerOptions(options), hook)), options);
}

export function jsonArrayFramer(options: JsonArrayFramerOptions & TransformOptions = {}): FramerTransform {
  checkOptions(options, FRAMER_OPTIONS, 'jsonArrayFramer()');
  return byteStageTransform(createJsonArrayFramer(options), options);
}

export function jsonValuesFramer(options: JsonValuesFramerOptions & TransformOptions = {}): FramerTransform {
  checkOptions(options, FRAMER_OPTIONS, 'jsonValuesFramer()');
  return byteStageTransform(createJsonValuesFramer(options), options);
}

/** One frame per non-empty line, built on split2. */
export function ndjsonFramer(options: FramerOptions = {}): Transform {
  checkOptions(options, FRAMER_OPTIONS, 'ndjsonFramer()');
  return split2NdjsonFramer(options);
}

/** Picks SSE, JSON array or JSON values from the first non-blank byte. */
export function autoFramer(options: AnyFramerOptions & TransformOptions = {}): FramerTransform {
  checkOptions(options, AUTO_FRAMER_OPTIONS, 'autoFramer()');
  return byteStageTransform(createHandoffFramer((hook) => makeAutoFramer(resolveFramerOptions(options), undefined, hook)), options);
}
