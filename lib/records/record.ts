/** One record, start to end: parse it, take its capture, read that, build the output. */
import { splitFields, takeBody } from './body.js';
import type { ResolvedRecordsOptions } from './options.js';
import { buildOutput } from './output.js';
import { parseRecord } from './parse.js';
import { splitBody } from './fast-body.js';
import { readCapture } from './read.js';
import type { RecordOutput } from './types.js';

/** Always one output (an error output for a bad record); rejects only as readCapture throws (a bug, an abort). */
export async function processRecord(input: unknown, options: ResolvedRecordsOptions): Promise<RecordOutput> {
  // a long line's text capture straight from its bytes (fast-body.ts); its rest parsed as usual
  const split = input instanceof Uint8Array ? splitBody(input, options.fields.body) : null;
  if (split !== null) {
    const rest = parseRecord(split.rest, options.maxRecordBytes);
    // (the rest still naming a capture, the body field spelled another way or a base64 or path field: the ordinary path judges)
    const others = 'error' in rest ? null : splitFields(rest.fields, options.fields);
    if (others !== null && others.present.length === 0) {
      return buildOutput(others.rest, await readCapture({ kind: 'bytes', bytes: split.body }, options.decoding, options.cwd), options.fields);
    }
  }
  const parsed = parseRecord(input, options.maxRecordBytes);
  if ('error' in parsed) return buildOutput({}, parsed.error, options.fields);
  const taken = takeBody(parsed.fields, options.fields);
  if (taken.capture === null) return buildOutput(taken.rest, taken.error!, options.fields);
  const result = await readCapture(taken.capture, options.decoding, options.cwd);
  return buildOutput(taken.rest, result, options.fields);
}
