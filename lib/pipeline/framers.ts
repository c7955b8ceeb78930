/** Public framing stages as Transforms: bytes or strings in, Frame objects out. */
import type { Transform } from 'node:stream';
import { createAutoFramer } from '../framing/detect.js';
import { createJsonArrayFramer, type JsonArrayFramerOptions } from '../framing/json-array.js';
import { createJsonValuesFramer, type JsonValuesFramerOptions } from '../framing/json-values.js';
import type { FramerOptions } from '../framing/options.js';
import { createSseFramer, type SseFramerOptions } from '../framing/sse.js';
import type { AnyFramerOptions } from '../framing/detect.js';
import { split2NdjsonFramer } from './ndjson-split2.js';
import { byteStageTransform, type StageTransform, type TransformOptions } from './transform.js';
import { recordStage } from './stage-descriptor.js';
import type { Chunk } from '../framing/bytes.js';
import type { Frame } from '../events.js';
import { checkOptions } from '../options.js';
import { AUTO_FRAMER_OPTIONS, FRAMER_OPTIONS, SSE_FRAMER_OPTIONS } from './option-keys.js';

export type FramerTransform = StageTransform<Chunk, Frame>;

export function sseFramer(options: SseFramerOptions & TransformOptions = {}): FramerTransform {
  checkOptions(options, SSE_FRAMER_OPTIONS, 'sseFramer()');
  return recordStage(byteStageTransform(createSseFramer(options), options), { kind: 'framer', framing: 'sse', options });
}

export function jsonArrayFramer(options: JsonArrayFramerOptions & TransformOptions = {}): FramerTransform {
  checkOptions(options, FRAMER_OPTIONS, 'jsonArrayFramer()');
  return recordStage(byteStageTransform(createJsonArrayFramer(options), options), { kind: 'framer', framing: 'json-array', options });
}

export function jsonValuesFramer(options: JsonValuesFramerOptions & TransformOptions = {}): FramerTransform {
  checkOptions(options, FRAMER_OPTIONS, 'jsonValuesFramer()');
  return recordStage(byteStageTransform(createJsonValuesFramer(options), options), { kind: 'framer', framing: 'json-values', options });
}

/** One frame per non-empty line, built on split2. */
export function ndjsonFramer(options: FramerOptions = {}): Transform {
  checkOptions(options, FRAMER_OPTIONS, 'ndjsonFramer()');
  return recordStage(split2NdjsonFramer(options), { kind: 'framer', framing: 'ndjson', options });
}

/** Picks SSE, JSON array or JSON values from the first non-blank byte. */
export function autoFramer(options: AnyFramerOptions & TransformOptions = {}): FramerTransform {
  checkOptions(options, AUTO_FRAMER_OPTIONS, 'autoFramer()');
  return recordStage(byteStageTransform(createAutoFramer(options), options), { kind: 'framer', framing: 'auto', options });
}
