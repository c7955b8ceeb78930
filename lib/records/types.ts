/**
 * Records mode: one JSON object per line, each holding one whole capture, in;
 * exactly one JSON object per record, out. The option and record types.
 */
import type { FinalResult } from '../accumulate/types.js';
import type { IterateOptions } from '../pipeline/iterate.js';

/**
 * Why a record gave no finals. The record itself is bad (its line, its
 * fields, its file): a capture whose stream has errors is not a bad record,
 * its finals carry those errors. In strict mode, and for a limit a capture
 * exceeds, the StreamError finals() throws gives the code instead
 * (`not_a_stream`, `limit_exceeded`, …).
 */
export type RecordErrorCode =
  /** A blank line, a line that is not JSON or not UTF-8, or JSON that is not an object (an array, a string, null…). */
  | 'invalid_record'
  /** A line longer than `maxRecordBytes` (it is skipped without being held). */
  | 'record_too_large'
  /** None of the capture fields (body, body_base64, path). */
  | 'missing_body'
  /** More than one of them. */
  | 'ambiguous_body'
  /** A capture field that is not a string. */
  | 'invalid_body'
  /** A body_base64 that is not base64 (standard or URL-safe alphabet, padding optional). */
  | 'invalid_base64'
  /** A path that cannot be opened or read; the message has the system's reason. */
  | 'unreadable_path';

export interface RecordError {
  code: RecordErrorCode | (string & {});
  message: string;
}

/**
 * One record's output: the input record's other fields (all but the capture
 * fields), then either `finals` (every FinalResult of the capture, in order)
 * or `error`, never both. The names are those of the options `finalsField`
 * and `errorField`; these are the defaults. A record that was not a JSON
 * object has no other fields: its output is `{ error }` alone.
 */
export interface RecordOutput {
  [field: string]: unknown;
  finals?: FinalResult[];
  error?: RecordError;
}

/** What records() takes: lines (bytes or strings) or records already parsed. */
export type RecordInput = string | Uint8Array | Record<string, unknown>;

/**
 * The options of records(): finals()' decoding options (dialect, framing,
 * strict, the limits…, applied to every capture) and the records' own.
 */
export interface RecordsOptions extends Omit<IterateOptions, 'signal'> {
  /** The field holding the capture as text. @defaultValue 'body' */
  bodyField?: string;
  /** The field holding the capture's bytes in base64. @defaultValue 'body_base64' */
  base64Field?: string;
  /** The field holding the path of a file to read the capture from. @defaultValue 'path' */
  pathField?: string;
  /** The output field of the finals. @defaultValue 'finals' */
  finalsField?: string;
  /** The output field of a bad record's error. @defaultValue 'error' */
  errorField?: string;
  /** The directory relative paths are resolved against. @defaultValue process.cwd() */
  cwd?: string;
  /**
   * How string and byte chunks are read. `bytes`: a byte stream, split into
   * lines at `\n` (`\r\n` tolerated; an unterminated last line is a record).
   * `lines`: each chunk is one record (a trailing `\n` or `\r\n` is dropped).
   * Objects are one record each either way.
   * @defaultValue 'bytes'
   */
  input?: 'bytes' | 'lines';
  /**
   * Records read at once (paths are read concurrently; output keeps input
   * order). Also the most records held: started, or done and waiting for an
   * earlier one.
   * @defaultValue 8
   */
  concurrency?: number;
  /** The longest record line, in bytes (Infinity: no limit). @defaultValue 64 MiB */
  maxRecordBytes?: number;
  /** Readable-side buffer, in records. @defaultValue 16 */
  highWaterMark?: number;
  /** Writable-side buffer, in chunks. @defaultValue 16 */
  writableHighWaterMark?: number;
}
