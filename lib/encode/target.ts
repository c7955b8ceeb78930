/**
 * The contract between the encoder (response boundaries, loss reports) and
 * one file per target wire. A target writes text (SSE or JSON); the encoder
 * stage turns it into bytes at its Transform.
 */
import type { DialectName, ErrorEvent, UnifiedEvent } from '../events.js';
import { unescapeJson } from '../framing/json-text.js';
import { latin1ToUtf8 } from '../framing/utf8.js';
import type { KeptText } from './byte-out.js';
import type { LossKind } from './types.js';

export interface TargetContext {
  /** Write wire text. */
  write(text: string): void;
  /** Report one event the target cannot carry (throws in strict mode). */
  lose(what: LossKind, detail: string): void;
  /**
   * A text delta's string as JSON text, the same as jsonString: when the delta came with the source's
   * own escaped text and that is what JSON.stringify would write, that text (nothing escaped again).
   */
  json(s: string): string;
  /** ctx.json without its quotes (jsonChars). */
  chars(s: string): string;
  /**
   * Writes `before`, ctx.chars(text) (or `chars`, when the caller has them) and `after`: the same as
   * one write of the three, but in byte mode a text that came as the source's bytes is copied as those.
   * `before` and `after` hold no kept text's ref() (in byte mode not searched for one: deltas are most writes).
   */
  writeText(before: string, text: string, after: string, chars?: string): void;
  /** write(head.text + n + rest), `n` a sequence number: in byte mode the head's bytes are copied. */
  writeAfter(head: Piece, n: number, rest: string): void;
  /** writeText(head.text + n + fields.text, text, after.text, chars): in byte mode the pieces' bytes are copied. */
  writeDelta(head: Piece, n: number, fields: Piece, text: string, after: Piece, chars?: string): void;
  /**
   * A text's JSON characters to write again later (in byte mode kept as bytes: see byte-out.ts);
   * valid until the response ends.
   */
  keep(): KeptText;
  /** The wire bytes (latin1 view of the JSON string body) when `s` is a delta's text given undecoded (rawDeltas), else null. */
  rawBody(s: string): string | null;
}

/** One response being written. */
export interface TargetResponse {
  /** One unified event of this response, in order (`start` first when the source had one). */
  push(ev: UnifiedEvent): void;
  /** The response ended without its `done` (input ended): close what is open. */
  abort(): void;
  /**
   * The text of its text deltas (`all`: and reasoning deltas) is read only through ctx.writeText,
   * ctx.keep and ctx.rawBody: createStream({ to }) then gives a delta that came as the source's bytes
   * those bytes (a latin1 view) as its text, not decoded (ctx.chars / ctx.json of it still give its
   * JSON characters).
   */
  readonly rawDeltas?: 'text' | 'all' | undefined;
  /**
   * Optional: a text or reasoning delta of choice 0, not a refusal (`contentIndex` -1: none), exactly as
   * push would take its event, without the event (the deltas the templates hand the encoder are most
   * of its calls).
   */
  delta?(reasoning: boolean, index: number, contentIndex: number, text: string): void;
}

export interface TargetDefinitionOf<N extends string> {
  readonly name: N;
  /** The HTTP content type of this wire. */
  readonly contentType: string;
  /** Other HTTP response headers the wire's clients need (e.g. the AI SDK's `x-vercel-ai-ui-message-stream: v1`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The dialects whose signatures, citations and stop reasons this wire can carry as they came. */
  readonly family: readonly DialectName[];
  /**
   * The sources that already speak this wire, in this framing: createStream({ to }) writes their
   * frames out as they came (a lossless pass-through) instead of encoding their events.
   */
  readonly passThrough?: { readonly dialects: readonly DialectName[]; readonly framing: 'sse' | 'json-array' };
  createResponse(ctx: TargetContext): TargetResponse;
  /** An error that belongs to no response (e.g. the input was not a stream), in this wire's error form. */
  writeError(ev: ErrorEvent, ctx: TargetContext): void;
  /** Written once when the whole output ends (e.g. nothing), after the last response. */
  end?(ctx: TargetContext): void;
}

export function defineTarget<const N extends string>(definition: TargetDefinitionOf<N>): TargetDefinitionOf<N> {
  return definition;
}

/** A JSON string body as wire bytes (latin1 view of valid UTF-8, as the templates capture it), decoded. */
export function decodeBody(raw: string): string {
  const body = latin1ToUtf8(raw);
  const b = body.indexOf('\\');
  return b === -1 ? body : unescapeJson(body, b);
}

/**
 * Wire text a target writes again and again (an event's head, the fields of a part's deltas): in byte
 * mode encoded once, at its first write, and copied after (a delta's event is mostly such text).
 */
export interface Piece {
  readonly text: string;
  /** Its UTF-8 bytes, once written in byte mode. */
  bytes: Uint8Array | null;
}

export function piece(text: string): Piece {
  return { text, bytes: null };
}

/** One SSE event block. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** One data-only SSE block. */
export function sseData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Characters JSON.stringify escapes (surrogates: a lone one is escaped, and only JSON.stringify tells). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string as JSON text, the same as JSON.stringify: text deltas are the bulk of every stream, and
 * most need no escape, which a regular expression finds faster than JSON.stringify copies them.
 */
export function jsonString(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** jsonString without its quotes (to join several into one JSON string). */
export function jsonChars(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s).slice(1, -1) : s;
}

/**
 * The same string, flat: a text built delta by delta is a rope of thousands of pieces, which every
 * write that repeats it would walk and copy again (reading a character flattens it in place).
 */
export function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}
