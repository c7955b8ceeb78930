/**
 * `json` provider events whose payload is parsed on first read: what the
 * separate decoder() stage hands on for a frame whose text a learned shape
 * (json-shapes.ts) already showed to be valid JSON, so that normalizer() can
 * read it with its templates and never parse it.
 *
 * `payload` is an own enumerable accessor, so a read, a spread,
 * JSON.stringify, structuredClone or a deep-equal see the parsed value as
 * before; the first read (or a write) turns it into a plain data property.
 * It is defined on the finished object with one shared descriptor, not in the
 * literal: getters written in an object literal make a closure per object and
 * leave it in dictionary mode (~0.9 µs an event against ~0.1 µs).
 */
import type { Json, Position, ProviderEvent } from '../events.js';

export type JsonProviderEvent = Extract<ProviderEvent, { kind: 'json' }>;

/** Set while unreadText probes an event: the accessor then reports itself instead of parsing. */
let probing = false;
let probed = false;

function settle(ev: JsonProviderEvent, value: Json): void {
  Object.defineProperty(ev, 'payload', { value, writable: true, enumerable: true, configurable: true });
}

const LAZY: PropertyDescriptor = {
  get(this: JsonProviderEvent): Json | undefined {
    if (probing) {
      probed = true;
      return undefined;
    }
    const value = JSON.parse(this.text!) as Json;
    try {
      settle(this, value);
    } catch {
      // a frozen or sealed event keeps its accessor: each read parses again
    }
    return value;
  },
  set(this: JsonProviderEvent, value: Json) {
    settle(this, value); // (a TypeError on a frozen event, as assigning to a frozen data property in strict code)
  },
  enumerable: true,
  configurable: true,
};

/** A `json` event for `text`, valid JSON, its payload parsed when first read. */
export function lazyJsonEvent(text: string, event: string, frame: number, at: Position | undefined): JsonProviderEvent {
  const ev: Omit<JsonProviderEvent, 'payload'> = { kind: 'json', text, event, frame };
  if (at !== undefined) ev.at = at;
  Object.defineProperty(ev, 'payload', LAZY);
  return ev as JsonProviderEvent;
}

/** The same event with its payload already parsed (same keys, same order). */
export function parsedJsonEvent(text: string, payload: Json, event: string, frame: number, at: Position | undefined): JsonProviderEvent {
  const ev: Omit<JsonProviderEvent, 'payload'> = { kind: 'json', text, event, frame };
  if (at !== undefined) ev.at = at;
  const parsed = ev as JsonProviderEvent;
  parsed.payload = payload;
  return parsed;
}

/**
 * The text of a lazy event nobody has read or written the payload of yet:
 * then the payload is that text's parse, whatever happened to the event
 * (a spread or a stringify would have read it). Undefined otherwise.
 */
export function unreadText(ev: JsonProviderEvent): string | undefined {
  probing = true;
  probed = false;
  try {
    void ev.payload;
  } finally {
    probing = false;
  }
  return probed ? ev.text : undefined;
}
