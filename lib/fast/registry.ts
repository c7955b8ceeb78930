/**
 * The raw-text fast path of each dialect that has one: its fast twin, which
 * learns templates from the payloads the parse path handled and maps what
 * they recognise through the delta functions the dialect's response handler
 * exposes (the same ones its parse path calls). A dialect not listed here is
 * read through `onPayload` only.
 */
import type { DialectName, JsonObject } from '../events.js';
import type { ResponseHandler } from '../dialects/types.js';
import type { Template, TemplateMatch } from './template.js';
import { messagesFast } from './dialects/anthropic-messages.js';
import { chatFast } from './dialects/openai-chat.js';
import { responsesFast } from './dialects/openai-responses.js';
import { geminiFast } from './dialects/gemini.js';
import { interactionsFast } from './dialects/gemini-interactions.js';

/** What a fast twin gets from the normalizer besides the handler. */
export interface FastContext {
  /**
   * A text (or reasoning) delta of choice 0, not a refusal, the match's
   * string field f (not empty), offered straight to a fused final
   * accumulator (see TextSink in dialects/types.ts). True when it was taken:
   * no event is emitted then. False: emit the event as usual.
   */
  takeText(reasoning: boolean, index: number, contentIndex: number, m: TemplateMatch, f: number): boolean;
}

/** One dialect's fast path, for its response handlers of type H. */
export interface FastDialect<H extends ResponseHandler = ResponseHandler> {
  /**
   * The template future payloads like this one would be recognised by (see
   * template.ts), or null. Called with a payload whose frame text no
   * template matched, after the handler's `onPayload` processed it.
   */
  learnTemplate(payload: JsonObject): Template | null;
  /**
   * A payload of `handler`'s response that a learned template recognised in
   * the frame text, before any JSON.parse. True when it was handled exactly
   * as `onPayload` would handle the parsed payload (same events, same
   * state); false, having emitted nothing and changed nothing, hands the
   * frame to the parse path.
   */
  onTemplate(handler: H, match: TemplateMatch, ctx: FastContext): boolean;
}

/**
 * Dialect name → its fast twin. Each twin is typed with the handler its
 * dialect's createResponse is declared to return; that the pairs here are
 * right is checked by running each dialect through its twin
 * (test/fast/registry.test.ts, test/fast/fast-path.test.ts).
 */
const FAST: { readonly [N in DialectName]?: FastDialect } = {
  'anthropic-messages': messagesFast,
  'xai-messages': messagesFast,
  'openai-chat': chatFast,
  'xai-chat': chatFast,
  'openai-responses': responsesFast,
  'xai-responses': responsesFast,
  gemini: geminiFast,
  'gemini-interactions': interactionsFast,
};

/** The fast twin of dialect `name`, or null when it has none. */
export function fastOf(name: DialectName): FastDialect | null {
  return FAST[name] ?? null;
}

/** The dialects with a fast path. */
export const fastDialects: readonly DialectName[] = Object.keys(FAST) as DialectName[];
