/**
 * One record's output: its other fields, in their order, then the finals or
 * the error. The two output names are reserved: an input field of either
 * name is left out, so that every output has exactly one of them.
 */
import type { FinalResult } from '../accumulate/types.js';
import { setField, type Fields } from './parse.js';
import type { RecordFields } from './options.js';
import type { RecordError, RecordOutput } from './types.js';

export function buildOutput(rest: Fields, result: FinalResult[] | RecordError, names: RecordFields): RecordOutput {
  const out: RecordOutput = {};
  for (const key of Object.keys(rest)) {
    if (key !== names.finals && key !== names.error) setField(out, key, rest[key]);
  }
  if (Array.isArray(result)) setField(out, names.finals, result);
  else setField(out, names.error, { code: result.code, message: result.message });
  return out;
}
