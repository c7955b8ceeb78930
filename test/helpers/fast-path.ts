/** Runs of the fused stage with the raw-text fast path on or off, for the tests that compare the two. */
import type { DialectOption } from '../../lib/events.js';
import type { FramingOption } from '../../lib/framing/detect.js';
import { createOutputStage } from '../../lib/pipeline/create-stream.js';

export interface Config {
  dialect?: DialectOption;
  framing?: FramingOption;
  maxTextBytes?: number;
  maxFrameBytes?: number;
}

/** Events (or finals, or text) of one run, with a fatal error kept as a value. */
export function run(chunks: Buffer[], config: Config, output: 'events' | 'final' | 'text', positions: boolean, fastPath: boolean): unknown[] {
  const stage = createOutputStage({ ...config, output, positions, fastPath } as Parameters<typeof createOutputStage>[0]);
  const out: unknown[] = [];
  const emit = (x: unknown): void => {
    out.push(x);
  };
  try {
    for (const c of chunks) stage.push(c, emit);
    stage.end(emit);
  } catch (err) {
    out.push({ thrown: (err as Error).name, message: (err as Error).message });
  }
  return out;
}

/** The payload texts JSON.parse saw during a fast-path run (positions off: every fast path may apply). */
export function parsedTexts(bytes: Buffer, config: Config): Set<string> {
  const parse = JSON.parse;
  const seen = new Set<string>();
  JSON.parse = function (this: unknown, text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    if (typeof text === 'string') seen.add(text);
    return parse.call(JSON, text, reviver) as unknown;
  } as typeof JSON.parse;
  try {
    run([bytes], config, 'events', false, true);
  } finally {
    JSON.parse = parse;
  }
  return seen;
}
