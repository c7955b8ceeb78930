/**
 * Concatenated JSON values separated by any whitespace: NDJSON, pretty-printed
 * multi-line WebSocket message logs (Gemini Live), and plain JSON error bodies.
 * Never fails on content: text that is not JSON becomes a frame that the
 * decoder reports as `invalid_json`.
 */
import type { Frame } from '../events.js';
import type { Stage } from '../stage.js';
import type { Chunk } from './bytes.js';
import { createJsonScanner } from './json-scanner.js';
import { resolveFramerOptions, type FramerOptions } from './options.js';

export type JsonValuesFramerOptions = FramerOptions;

export function createJsonValuesFramer(options: JsonValuesFramerOptions = {}): Stage<Chunk, Frame> {
  return createJsonScanner('values', resolveFramerOptions(options));
}
