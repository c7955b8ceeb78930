/** Runs of the fused stage with the raw-text fast path on or off, for the tests that compare the two. */
import type { DialectOption } from '../../lib/events.js';
import type { FramingOption } from '../../lib/framing/detect.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';
import { runChunks } from './run.js';

export interface Config {
  dialect?: DialectOption;
  framing?: FramingOption;
  maxTextBytes?: number;
  maxFrameBytes?: number;
}

/** Events (or finals, or text) of one run, with a fatal error kept as a value. */
export function run(chunks: Buffer[], config: Config, output: 'events' | 'final' | 'text', positions: boolean, fastPath: boolean): unknown[] {
  const stage = createOutputStage({ ...config, output, positions, fastPath } as Parameters<typeof createOutputStage>[0]);
  const { items, error } = runChunks<Buffer, unknown>(stage, chunks);
  return error === null ? items : [...items, { thrown: error.name, message: error.message }];
}

/** Runs `fn` with JSON.parse watched: `onText` sees every text it parses. */
export function watchingJsonParse(onText: (text: string) => void, fn: () => void): void {
  const parse = JSON.parse;
  JSON.parse = function (this: unknown, text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    if (typeof text === 'string') onText(text);
    return parse.call(JSON, text, reviver) as unknown;
  } as typeof JSON.parse;
  try {
    fn();
  } finally {
    JSON.parse = parse;
  }
}

/** The payload texts JSON.parse saw during a fast-path run (positions off: every fast path may apply). */
export function parsedTexts(bytes: Buffer, config: Config): Set<string> {
  const seen = new Set<string>();
  watchingJsonParse(
    (text) => seen.add(text),
    () => run([bytes], config, 'events', false, true),
  );
  return seen;
}
