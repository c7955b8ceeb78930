/** records()' options, checked once at the call: the decoding options as finals() checks them, then the records' own. */
import { OptionError } from '../errors.js';
import { choiceOption, knownOptions, optionKeys, optionsObject } from '../options.js';
import { ITERATE_OPTIONS } from '../pipeline/option-keys.js';
import { resolveStreamOptions, type ResolvedStreamOptions } from '../pipeline/stream-options.js';
import type { IterateOptions } from '../pipeline/iterate.js';
import type { RecordsOptions } from './types.js';

type OwnOptions = Omit<RecordsOptions, keyof IterateOptions>;

const OWN = optionKeys<OwnOptions>()([
  'bodyField',
  'base64Field',
  'pathField',
  'finalsField',
  'errorField',
  'cwd',
  'input',
  'concurrency',
  'maxRecordBytes',
  'highWaterMark',
  'writableHighWaterMark',
]);

/** Every option name records() takes (finals()' but `signal`: the stream's destroy() stops it). */
export const RECORDS_OPTIONS: readonly string[] = [...ITERATE_OPTIONS.filter((k) => k !== 'signal'), ...OWN];

export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** The field names a record is read and written with. */
export interface RecordFields {
  readonly body: string;
  readonly base64: string;
  readonly path: string;
  readonly finals: string;
  readonly error: string;
}

export const DEFAULT_FIELDS: RecordFields = Object.freeze({
  body: 'body',
  base64: 'body_base64',
  path: 'path',
  finals: 'finals',
  error: 'error',
});

export interface ResolvedRecordsOptions {
  readonly fields: RecordFields;
  readonly cwd: string;
  readonly input: 'bytes' | 'lines';
  readonly concurrency: number;
  readonly maxRecordBytes: number;
  readonly highWaterMark: number | undefined;
  readonly writableHighWaterMark: number | undefined;
  /** finals()' options for every capture, with the stream's own signal (destroying the stream stops the reads under way). */
  readonly decoding: ResolvedStreamOptions;
}

function fieldOption(name: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value === '') throw new OptionError(name, value, 'a field name (a non-empty string)');
  return value;
}

function countOption(name: string, value: unknown, fallback: number, infinite: boolean): number {
  if (value === undefined) return fallback;
  const ok = typeof value === 'number' && ((Number.isInteger(value) && value >= 1) || (infinite && value === Infinity));
  if (!ok) throw new OptionError(name, value, infinite ? 'a positive integer or Infinity' : 'a positive integer');
  return value;
}

export function resolveRecordsOptions(options: RecordsOptions | undefined, signal: AbortSignal): ResolvedRecordsOptions {
  const o = optionsObject(options);
  knownOptions(o, RECORDS_OPTIONS, 'records()');
  const decodingOptions: Record<string, unknown> = { signal };
  for (const key of ITERATE_OPTIONS) {
    const value = (o as Record<string, unknown>)[key];
    if (value !== undefined && key !== 'signal') decodingOptions[key] = value;
  }
  const decoding = resolveStreamOptions(decodingOptions, ITERATE_OPTIONS, 'records()', 'final');
  const fields: RecordFields = Object.freeze({
    body: fieldOption('bodyField', o.bodyField, DEFAULT_FIELDS.body),
    base64: fieldOption('base64Field', o.base64Field, DEFAULT_FIELDS.base64),
    path: fieldOption('pathField', o.pathField, DEFAULT_FIELDS.path),
    finals: fieldOption('finalsField', o.finalsField, DEFAULT_FIELDS.finals),
    error: fieldOption('errorField', o.errorField, DEFAULT_FIELDS.error),
  });
  if (new Set([fields.body, fields.base64, fields.path]).size < 3) {
    throw new OptionError('bodyField', [fields.body, fields.base64, fields.path], 'bodyField, base64Field and pathField to be three different names', 'option bodyField / base64Field / pathField');
  }
  if (fields.finals === fields.error) {
    throw new OptionError('finalsField', fields.finals, 'finalsField and errorField to be different names', 'option finalsField / errorField');
  }
  if (o.cwd !== undefined && (typeof o.cwd !== 'string' || o.cwd === '')) throw new OptionError('cwd', o.cwd, 'a directory (a non-empty string)');
  return Object.freeze({
    fields,
    cwd: o.cwd ?? process.cwd(),
    input: choiceOption('input', o.input, ['bytes', 'lines'] as const, 'bytes'),
    concurrency: countOption('concurrency', o.concurrency, DEFAULT_CONCURRENCY, false),
    maxRecordBytes: countOption('maxRecordBytes', o.maxRecordBytes, DEFAULT_MAX_RECORD_BYTES, true),
    highWaterMark: o.highWaterMark,
    writableHighWaterMark: o.writableHighWaterMark,
    decoding,
  });
}
