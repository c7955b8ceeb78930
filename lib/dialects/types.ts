/**
 * The contract between the normalizer (response lifecycle, auto-detection,
 * positions, missing terminals) and one file per dialect (the mapping).
 */
import type { DialectName, Json, JsonObject, Position, UnifiedEvent } from '../events.js';
import type { Template, TemplateMatch } from './fast/template.js';

export interface DialectContext {
  /** Emit one unified event. Emitting `done` closes the response. */
  emit(event: UnifiedEvent): void;
  /** Position of the frame being handled (only with positions on; the normalizer stamps it on events itself). */
  readonly at: Position | undefined;
  /** Number of the frame being handled. */
  readonly frame: number;
  /**
   * From `onTemplate` only: a text (or reasoning) delta of choice 0, not a
   * refusal, the match's string field f (not empty), offered straight to a
   * fused final accumulator (see TextSink). True when it was taken: no event
   * is emitted then. False: emit the event as usual.
   */
  takeText(reasoning: boolean, index: number, contentIndex: number, m: TemplateMatch, f: number): boolean;
}

/**
 * Fused final mode: takes a text or reasoning delta (contentIndex -1 when
 * none) exactly as the final accumulator would take its event, without the
 * event object and the hops it passes through; false when the event must be
 * emitted instead (e.g. no response open yet).
 */
export type TextSink = (reasoning: boolean, index: number, contentIndex: number, text: string) => boolean;

/**
 * A TextSink that takes the delta as its wire bytes instead (see
 * TemplateMatch.raw), which saves decoding them one delta at a time; false
 * leaves it to the TextSink.
 */
export type RawTextSink = (reasoning: boolean, index: number, contentIndex: number, raw: string) => boolean;

/** One response's worth of state. A new handler is created for each response. */
export interface ResponseHandler {
  /** One parsed payload of this response. `event` is the SSE event name (informative only). */
  onPayload(payload: Json, event: string): void;
  /**
   * Raw-text fast path (fused pipeline only): a payload of this response that
   * one of the dialect's learned templates recognised in the frame text, before
   * any JSON.parse. Returns true when it handled it exactly as `onPayload`
   * would the parsed payload (same events, same state); false — having emitted
   * nothing and changed nothing — hands the frame to the parse path.
   */
  onTemplate?(match: TemplateMatch): boolean;
  /**
   * The template future payloads like this one would be recognised by (see
   * fast/template.ts), or null. Called with a payload whose frame text no
   * template matched, after `onPayload` has processed it; must not change state.
   */
  learnTemplate?(payload: JsonObject): Template | null;
  /** The `[DONE]` sentinel arrived while this response is open. */
  onDoneSentinel(): void;
  /**
   * Input ended (or the response was cut off) without a terminal signal.
   * Emit whatever is owed first (e.g. `tool_call_done` for calls whose arguments
   * completed, usage seen so far); the normalizer then emits the
   * `incomplete_stream` error and `done` with stopReason `error`.
   */
  onIncomplete(): void;
  /** True once the response has begun, i.e. its missing terminal must be reported. */
  readonly started: boolean;
}

export interface DialectDefinition {
  readonly name: DialectName;
  /**
   * True when the dialect reads client → server messages of WebSocket captures
   * (e.g. the model named in Gemini Live's `setup`); they must never open a
   * response. Other dialects get such messages as `raw` from the normalizer.
   */
  readonly readsClientMessages?: boolean;
  createResponse(ctx: DialectContext): ResponseHandler;
}
