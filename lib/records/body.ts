/**
 * A record's capture: which of its fields holds it (exactly one of the text,
 * base64 and path fields; null counts as absent), checked, and the fields
 * that go on to the output (all the others).
 */
import { setField, type Fields } from './parse.js';
import type { RecordFields } from './options.js';
import type { RecordError } from './types.js';

export type Capture = { kind: 'bytes'; bytes: Buffer } | { kind: 'path'; path: string };

export interface TakenBody {
  /** The record's other fields, in their order. */
  rest: Fields;
  capture: Capture | null;
  /** Why there is no capture. */
  error: RecordError | null;
}

/** Standard or URL-safe alphabet, padding optional; its length must be possible (not 1 more than a multiple of 4). */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** The bytes of a base64 text, or null when it is not base64 (Buffer.from would skip the bad characters without a word). */
export function decodeBase64(text: string): Buffer | null {
  if (!BASE64.test(text)) return null;
  const unpadded = text.length - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
  if (unpadded % 4 === 1) return null;
  if (text.length > unpadded && text.length % 4 !== 0) return null; // padded, but not to a multiple of 4
  return Buffer.from(text, 'base64');
}

/** The fields other than the capture fields, in their order, and the capture fields present (null counts as absent). */
export function splitFields(fields: Fields, names: RecordFields): { rest: Fields; present: string[] } {
  const rest: Fields = {};
  const present: string[] = [];
  for (const key of Object.keys(fields)) {
    if (key === names.body || key === names.base64 || key === names.path) {
      if (fields[key] !== null && fields[key] !== undefined) present.push(key);
    } else setField(rest, key, fields[key]);
  }
  return { rest, present };
}

export function takeBody(fields: Fields, names: RecordFields): TakenBody {
  const { rest, present } = splitFields(fields, names);
  const fail = (code: RecordError['code'], message: string): TakenBody => ({ rest, capture: null, error: { code, message } });
  if (present.length === 0) {
    return fail('missing_body', `the record has none of the fields ${JSON.stringify(names.body)}, ${JSON.stringify(names.base64)} or ${JSON.stringify(names.path)}`);
  }
  if (present.length > 1) return fail('ambiguous_body', `the record has ${present.map((k) => JSON.stringify(k)).join(' and ')}: give one of them`);
  const key = present[0]!;
  const value = fields[key];
  if (typeof value !== 'string') {
    const kind = Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
    return fail('invalid_body', `${JSON.stringify(key)} is ${kind}, not a string`);
  }
  if (key === names.body) return { rest, capture: { kind: 'bytes', bytes: Buffer.from(value, 'utf8') }, error: null };
  if (key === names.base64) {
    const bytes = decodeBase64(value);
    if (bytes === null) return fail('invalid_base64', `${JSON.stringify(key)} is not base64`);
    return { rest, capture: { kind: 'bytes', bytes }, error: null };
  }
  if (value === '') return fail('unreadable_path', `${JSON.stringify(key)} is empty`);
  return { rest, capture: { kind: 'path', path: value }, error: null };
}
