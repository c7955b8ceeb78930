/**
 * One record line → the record's fields, or why it is not a record. JSON
 * Lines has no blank lines: a blank (or all-whitespace) line is an
 * invalid_record, so that it still gets its one output line.
 */
import { Oversized } from './lines.js';
import type { RecordError } from './types.js';

export type Fields = Record<string, unknown>;

export type Parsed = { fields: Fields } | { error: RecordError };

const utf8 = new TextDecoder('utf-8', { fatal: true });
const BLANK = /^\s*$/;

function invalid(message: string): { error: RecordError } {
  return { error: { code: 'invalid_record', message } };
}

/** What a JSON value is, for messages: `an array`, `a string`, `null`. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Whether `value` is a record already parsed: a plain object (not an array, a Buffer, a Date…). */
export function isPlainObject(value: unknown): value is Fields {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Parses one record: a line (its bytes or text, no line ending), an object
 * given as it is, or the marker of a line too long to hold.
 */
export function parseRecord(input: unknown, maxRecordBytes: number): Parsed {
  if (input instanceof Oversized) {
    return { error: { code: 'record_too_large', message: `the record line is ${input.bytes} bytes, more than maxRecordBytes (${maxRecordBytes})` } };
  }
  let text: string;
  if (typeof input === 'string') {
    text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input; // as TextDecoder drops a BOM from bytes
  } else if (input instanceof Uint8Array) {
    try {
      text = utf8.decode(input);
    } catch {
      return invalid('the line is not valid UTF-8');
    }
  } else if (isPlainObject(input)) {
    return { fields: input };
  } else {
    return invalid(`the record is ${kindOf(input)}, not a JSON object`);
  }
  if (BLANK.test(text)) return invalid('blank line: each line must be one JSON object (JSON Lines)');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return invalid(`not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return invalid(`the line is ${kindOf(value)}, not a JSON object`);
  return { fields: value as Fields };
}

/** Sets a field as an own property, even one named `__proto__` (JSON.parse makes such a field; plain assignment would set the prototype). */
export function setField(target: Fields, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
