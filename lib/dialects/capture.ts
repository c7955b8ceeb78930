/**
 * WebSocket message logs and already-received messages → provider events.
 *
 * - Capture records `{"dir":"recv"|"send","data":"<message text>"}` (one per
 *   line, the corpus `*.ws.jsonl` shape): `recv` data is parsed as the provider
 *   message (a second parse, unavoidable since the message is a JSON string).
 * - Browser HAR exports `{log:{entries:[{_webSocketMessages:[{type,time,opcode,data}]}]}}`:
 *   each message of each WebSocket entry, in order.
 * - `createMessageDecoder()`: messages received whole (e.g. the `ws` package's
 *   `message` event) decoded one by one, with no framing.
 *
 * Client → server messages are never fed to a dialect as if the server sent
 * them: they become a payload `{dir:'send', data, …}` (the event carries
 * `direction: 'send'`), which the realtime dialects pass through as `raw`
 * without opening a response. `data` stays the message text unless the option
 * `captures: 'all'` asks for client messages to be parsed too. A binary
 * client frame (HAR `opcode: 2`; a capture record with `"opcode": 2` or
 * `"binary": true`, its bytes in base64) whose bytes are not JSON text (STT
 * audio going up) is never decoded as text: its payload keeps `data: null`,
 * `binary: true` and the frame's size in `bytes`.
 */
import { OptionError } from '../errors.js';
import { base64, utf8 as decodeUtf8 } from '../bytes/index.js';
import { optionsObject } from '../options.js';
import type { Json, JsonObject, Position, ProviderEvent } from '../events.js';
import type { Emit, Stage } from '../stage.js';

/** `recv` (default): parse server messages only; `all`: also parse the `data` of client messages. */
export type CaptureMode = 'recv' | 'all';

export interface CaptureOptions {
  /** @defaultValue 'recv' */
  captures?: CaptureMode;
}

/** A provider event built from a client → server message. */
export type SendProviderEvent = ProviderEvent & { kind: 'json'; direction: 'send' };

/** A provider event, possibly marked as a client message. */
export type CaptureProviderEvent = ProviderEvent & { direction?: 'send' };

/** True for the payload of a client message kept in the stream (`{dir:'send', data}`). */
export function isSendRecord(payload: Json): boolean {
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload) && payload['dir'] === 'send' && 'data' in payload;
}

export function resolveCaptureMode(options: CaptureOptions): CaptureMode {
  const mode = options.captures ?? 'recv';
  if (mode !== 'recv' && mode !== 'all') throw new OptionError('captures', mode, "'recv' or 'all'");
  return mode;
}

/**
 * Decodes one complete message text: JSON-parsed once; the `[DONE]` sentinel
 * becomes a terminal marker; blank text stays a string payload.
 */
export function decodeMessage(data: string, event: string, frame: number, at?: Position): ProviderEvent {
  let ev: ProviderEvent;
  if (isDoneSentinel(data)) ev = { kind: 'done', event, frame };
  else if (isBlankText(data)) ev = { kind: 'json', payload: data, event, frame };
  else {
    try {
      ev = { kind: 'json', payload: JSON.parse(data) as Json, event, frame };
    } catch (err) {
      ev = { kind: 'invalid', text: data, message: (err as Error).message, event, frame };
    }
  }
  if (at !== undefined) ev.at = at;
  return ev;
}

function isDoneSentinel(data: string): boolean {
  if (data === '[DONE]') return true;
  return data.length < 16 && data.trim() === '[DONE]';
}

function isBlankText(data: string): boolean {
  return data.length === 0 || (data.length < 64 && data.trim() === '');
}

const enum Mode {
  Unknown,
  Plain,
  Capture,
  Har,
}

/** Turns one decoded payload into the provider events it stands for (unwrapping records and HAR). */
export type CaptureUnwrapper = (pe: ProviderEvent & { kind: 'json' }, emit: Emit<ProviderEvent>) => void;

/**
 * The input's shape is decided once, on its first JSON object (a log is
 * homogeneous), so plain provider streams pay one comparison per payload.
 */
export function createCaptureUnwrapper(options: CaptureOptions = {}): CaptureUnwrapper {
  options = optionsObject(options);
  const parseSent = resolveCaptureMode(options) === 'all';
  let mode = Mode.Unknown;

  function send(record: JsonObject, pe: ProviderEvent, emit: Emit<ProviderEvent>): void {
    let payload: Json = record;
    if ((record['opcode'] === 2 || record['binary'] === true) && typeof record['data'] === 'string') {
      // A binary frame: JSON text (Gemini Live's client may send its JSON so) or bytes no one reads as text (STT audio going up).
      const bytes = base64(record['data']);
      const parsed = tryParse(utf8(bytes));
      if (parsed === undefined) payload = { ...record, data: null, binary: true, bytes: bytes.length };
      else if (parseSent) payload = { ...record, data: parsed };
    } else if (parseSent && typeof record['data'] === 'string') {
      const parsed = tryParse(record['data']);
      if (parsed !== undefined) payload = { ...record, data: parsed };
    }
    const ev: SendProviderEvent = { kind: 'json', payload, event: pe.event, frame: pe.frame, direction: 'send' };
    if (pe.at !== undefined) ev.at = pe.at;
    emit(ev);
  }

  function record(p: JsonObject, pe: ProviderEvent & { kind: 'json' }, emit: Emit<ProviderEvent>): void {
    if (p['dir'] === 'send') return send(p, pe, emit);
    const data = p['data'];
    if (typeof data === 'string') emit(decodeMessage(data, pe.event, pe.frame, pe.at));
    else {
      // A log that stored messages already parsed.
      const ev: ProviderEvent = { kind: 'json', payload: data ?? null, event: pe.event, frame: pe.frame };
      if (pe.at !== undefined) ev.at = pe.at;
      emit(ev);
    }
  }

  function har(p: JsonObject, pe: ProviderEvent & { kind: 'json' }, emit: Emit<ProviderEvent>): void {
    let count = 0;
    const entries = (p['log'] as JsonObject)['entries'] as Json[];
    for (const entry of entries) {
      if (!isObj(entry)) continue;
      const messages = entry['_webSocketMessages'];
      // Plain HTTP entries are not part of any WebSocket stream.
      if (!Array.isArray(messages)) continue;
      for (const m of messages) {
        count++;
        harMessage(m, pe, emit);
      }
    }
    if (count === 0) emit(pe); // nothing to expand: keep the document itself
  }

  function harMessage(m: Json, pe: ProviderEvent & { kind: 'json' }, emit: Emit<ProviderEvent>): void {
    if (!isObj(m)) return emit(withPayload(pe, m));
    const type = m['type'];
    const data = m['data'];
    if (typeof data !== 'string' || (type !== 'receive' && type !== 'send')) return emit(withPayload(pe, m));
    // Opcode 2 is a binary frame, exported as base64 (Gemini Live sends its JSON in binary frames).
    const binary = m['opcode'] === 2;
    if (type === 'receive') {
      emit(decodeMessage(binary ? base64Text(data) : data, pe.event, pe.frame, pe.at));
      return;
    }
    const rec: JsonObject = { dir: 'send', data };
    if (m['time'] !== undefined) rec['time'] = m['time'];
    if (m['opcode'] !== undefined) rec['opcode'] = m['opcode'];
    send(rec, pe, emit);
  }

  return (pe, emit) => {
    if (mode === Mode.Plain) return emit(pe);
    const p = pe.payload;
    if (!isObj(p)) return emit(pe);
    if (mode === Mode.Unknown) mode = isRecord(p) ? Mode.Capture : isHar(p) ? Mode.Har : Mode.Plain;
    if (mode === Mode.Capture && isRecord(p)) record(p, pe, emit);
    else if (mode === Mode.Har && isHar(p)) har(p, pe, emit);
    else emit(pe);
  };
}

/** What `createMessageDecoder` accepts: a message text, its bytes, or a value already parsed. */
export type MessageInput = string | Uint8Array | ArrayBuffer | Json;

/**
 * Messages that arrive whole (a WebSocket's `message` events) → provider
 * events, one message at a time, with no framing. Strings and bytes are the
 * message text; any other value is taken as the parsed message. Capture
 * records and HAR documents are unwrapped as in the byte pipeline.
 */
export function createMessageDecoder(options: CaptureOptions = {}): Stage<MessageInput, ProviderEvent> {
  const unwrap = createCaptureUnwrapper(options);
  let frame = 0;
  return {
    push(message, emit) {
      const n = frame++;
      let pe: ProviderEvent;
      if (typeof message === 'string') pe = decodeMessage(message, 'message', n);
      else if (message instanceof Uint8Array) pe = decodeMessage(utf8(message), 'message', n);
      else if (message instanceof ArrayBuffer) pe = decodeMessage(utf8(new Uint8Array(message)), 'message', n);
      else pe = { kind: 'json', payload: message, event: 'message', frame: n };
      if (pe.kind === 'json') unwrap(pe, emit);
      else emit(pe);
    },
    end() {},
  };
}

function utf8(bytes: Uint8Array): string {
  return decodeUtf8(bytes, 0, bytes.length);
}

/** A binary message's base64 as UTF-8 text. */
function base64Text(data: string): string {
  return utf8(base64(data));
}

function isObj(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isRecord(p: JsonObject): boolean {
  const dir = p['dir'];
  return (dir === 'recv' || dir === 'send') && 'data' in p;
}

function isHar(p: JsonObject): boolean {
  const log = p['log'];
  return isObj(log) && Array.isArray(log['entries']);
}

function withPayload(pe: ProviderEvent & { kind: 'json' }, payload: Json): ProviderEvent {
  const ev: ProviderEvent = { kind: 'json', payload, event: pe.event, frame: pe.frame };
  if (pe.at !== undefined) ev.at = pe.at;
  return ev;
}

function tryParse(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}
