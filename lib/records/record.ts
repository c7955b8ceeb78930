/** One record, start to end: parse it, take its capture, read that, build the output. */
import { takeBody } from './body.js';
import type { ResolvedRecordsOptions } from './options.js';
import { buildOutput } from './output.js';
import { parseRecord } from './parse.js';
import { readCapture } from './read.js';
import type { RecordOutput } from './types.js';

/** Always one output (an error output for a bad record); rejects only as readCapture throws (a bug, an abort). */
export async function processRecord(input: unknown, options: ResolvedRecordsOptions): Promise<RecordOutput> {
  const parsed = parseRecord(input, options.maxRecordBytes);
  if ('error' in parsed) return buildOutput({}, parsed.error, options.fields);
  const taken = takeBody(parsed.fields, options.fields);
  if (taken.capture === null) return buildOutput(taken.rest, taken.error!, options.fields);
  const result = await readCapture(taken.capture, options.decoding, options.cwd);
  return buildOutput(taken.rest, result, options.fields);
}
