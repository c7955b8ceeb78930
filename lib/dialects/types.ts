/**
 * The contract between the normalizer (response lifecycle, auto-detection,
 * positions, missing terminals) and one file per dialect (its definition:
 * name, family, detection, mapping).
 */
import type { DialectName, Json, JsonObject, Position, UnifiedEvent } from '../events.js';

export interface DialectContext {
  /** Emit one unified event. Emitting `done` closes the response. */
  emit(event: UnifiedEvent): void;
  /** Position of the frame being handled (only with positions on; the normalizer stamps it on events itself). */
  readonly at: Position | undefined;
  /** Number of the frame being handled. */
  readonly frame: number;
  /** The input's lane router when the dialect has one (see DialectDefinitionOf.lanes), e.g. to look up what the client sent. */
  readonly router?: LaneRouter | null;
}

/** Where one payload goes: its lane (absent: the unlaned path) and its agent tag. */
export interface LaneRoute {
  /** The lane's key, stamped as `streamId` on every event of the lane's responses. */
  lane?: string;
  /** Stamped as `agent` on every event the payload produces. */
  agent?: string;
}

/**
 * A dialect's demultiplexer of one input (created once per input, when the
 * dialect is known). The normalizer keeps one handler per open lane, created
 * by `createResponse` on the lane's first payload and closed by its `done`
 * (stamped with the lane), so several responses can be open at once.
 */
export interface LaneRouter {
  /**
   * The route of a server payload, or null for the unlaned path (a response
   * at a time, as without a router). Called for client messages of a capture
   * too (`send`), which only teach the router (they stay `raw` events, stamped
   * with the lane the returned route names).
   */
  route(payload: JsonObject, send: boolean): LaneRoute | null;
  /** The client message a server payload answers (e.g. the `response.steer` a `response.steer.accepted` acknowledges), if the capture holds it. */
  sent?(payload: JsonObject): JsonObject | undefined;
}

/**
 * Fused final mode: takes a text or reasoning delta (contentIndex -1 when
 * none) exactly as the final accumulator would take its event, without the
 * event object and the hops it passes through; false when the event must be
 * emitted instead (e.g. no response open yet). `body`, when given: the
 * text's JSON string body as the payload had it, escapes undecoded (see
 * TemplateMatch.body in lib/fast/template.ts).
 */
export type TextSink = (reasoning: boolean, index: number, contentIndex: number, text: string, body?: string) => boolean;

/**
 * A TextSink that takes the delta as its wire bytes instead (see
 * TemplateMatch.raw in lib/fast/template.ts), which saves decoding them one
 * delta at a time; false leaves it to the TextSink.
 */
export type RawTextSink = (reasoning: boolean, index: number, contentIndex: number, raw: string) => boolean;

/**
 * One response's worth of state. A new handler is created for each response.
 * A dialect with a raw-text fast path (lib/fast/registry.ts) also exposes
 * the delta mapping its payloads go through (e.g. `textDelta`), which its
 * fast twin calls for the deltas it recognises without parsing them.
 */
export interface ResponseHandler {
  /** One parsed payload of this response. `event` is the SSE event name (informative only). */
  onPayload(payload: Json, event: string): void;
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
  /**
   * Optional: called with each payload before `onPayload`. A handler that held
   * its `done` back because more of the same response may follow (Gemini: a
   * `finishReason` after a call the server runs itself) emits that `done` here
   * when `payload` does not continue the response; the normalizer then opens a
   * new response for the payload. (At the end of the input, `onIncomplete`
   * emits it.)
   */
  beforePayload?(payload: JsonObject): void;
}

/**
 * One dialect, described by itself (see CONTRIBUTING.md): its file exports one
 * such object (through `defineDialect`) and lib/dialects/registry.ts lists it.
 * Everything else (the DialectName union, `dialectNames`, `--dialect`,
 * auto-detection, doctor's per-dialect checks) is derived from these objects.
 */
export interface DialectDefinitionOf<N extends string> {
  /** The name users pass as `dialect` and see in `start` events. */
  readonly name: N;
  /**
   * The wire family: dialects of one family speak the same vocabulary (xAI's
   * `/v1/chat/completions` is OpenAI's Chat Completions, `family: 'chat'`).
   * A forced dialect is only reported as mismatched (`dialect_mismatch`) when
   * the payloads look like another family; a log read with `auto` only moves
   * to another dialect of the same family on positive evidence (see
   * `isCatchAll` in registry.ts); doctor's checks of a wire shape (Anthropic's
   * block indices and usage, Gemini's usage and signatures) run for every
   * dialect of that family.
   */
  readonly family: string;
  /**
   * Whether `payload` (a JSON object from the server: the first one of the
   * input, or the first one of a response of a mixed log) is this dialect's.
   * Asked in the registry's order, first yes wins: a dialect listed after its
   * look-alikes need not rule them out (openai-chat says yes to every chat
   * chunk; xai-chat, listed before it, has taken those of a grok model).
   * Never true for a payload that does not tell (e.g. a bare `ping`): the
   * normalizer then holds it and asks again with the next one.
   */
  detect(payload: JsonObject): boolean;
  /**
   * True when the dialect reads client → server messages of WebSocket captures
   * (e.g. the model named in Gemini Live's `setup`); they must never open a
   * response. Other dialects get such messages as `raw` from the normalizer.
   */
  readonly readsClientMessages?: boolean;
  /**
   * True when a response ends with the `data: [DONE]` sentinel after its
   * terminal event (Chat Completions): `wirefold doctor` reports a response
   * without one as `missing_terminal`.
   */
  readonly doneSentinel?: boolean;
  /**
   * True for a WebSocket session (Realtime, Live) or an agent session stream,
   * where messages between and after responses are normal: doctor reports
   * none of them as `trailing_data`.
   */
  readonly session?: boolean;
  /**
   * Optional: a new lane router for one input, when the dialect's logs may
   * hold several responses at once (WebSocket lanes, subagents). Without it
   * every payload takes the unlaned path.
   */
  lanes?(): LaneRouter;
  /** A handler for one response: called when a response begins (its first payload), once per response. */
  createResponse(ctx: DialectContext): ResponseHandler;
}

/** A dialect of this package (its name is one of DialectName). */
export type DialectDefinition = DialectDefinitionOf<DialectName>;

/**
 * Types a dialect's definition with its name as a literal, so the registry's
 * list gives the DialectName union (`export const myDialect = defineDialect({ name: 'my-dialect', … })`).
 */
export function defineDialect<const N extends string>(definition: DialectDefinitionOf<N>): DialectDefinitionOf<N> {
  return definition;
}
