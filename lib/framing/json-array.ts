/** Gemini's default streamGenerateContent framing: one JSON array streamed incrementally. */
import type { Frame } from '../events.js';
import type { Stage } from '../stage.js';
import type { Chunk } from './bytes.js';
import { createJsonScanner } from './json-scanner.js';
import { resolveFramerOptions, type FramerOptions } from './options.js';

export type JsonArrayFramerOptions = FramerOptions;

/** Emits each top-level array element as soon as it closes; `data` is the element's JSON text. */
export function createJsonArrayFramer(options: JsonArrayFramerOptions = {}): Stage<Chunk, Frame> {
  return createJsonScanner('array', resolveFramerOptions(options));
}
