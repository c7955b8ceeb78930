/**
 * The closed vocabularies that flow between stages:
 * bytes → Frame → ProviderEvent → UnifiedEvent.
 */
import type { ErrorCode, Position } from './errors.js';
import type { DIALECTS } from './dialects/registry.js';

export type { Position } from './errors.js';

/** One frame out of a framer: an SSE event, a JSON array element, or a line. */
export interface Frame {
  /** SSE event name (`message` when none); `message` for the JSON framings. */
  event: string;
  /** The payload text. */
  data: string;
  /** Last event ID in force (`''` when none). */
  id: string;
  /** Reconnection time in ms, only on a frame whose block set a valid one. */
  retry?: number;
  /** Present only with `positions: true`. */
  at?: Position;
  /** Byte offset where this frame began, present only when its bytes were not valid UTF-8 (replaced with U+FFFD). */
  invalidUtf8At?: number;
}

/**
 * The dialect names accepted by `decoder`, `normalizer` and `createStream`
 * (`'openai-chat'`, `'anthropic-messages'`, `'gemini'`…): the `name` of each
 * definition in the registry's list (lib/dialects/registry.ts), so a new
 * dialect adds its name by itself.
 */
export type DialectName = (typeof DIALECTS)[number]['name'];

export type DialectOption = DialectName | 'auto';

/** JSON as parsed by JSON.parse. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A decoded frame: the payload parsed once, or the reason it could not be. */
export type ProviderEvent =
  | {
      kind: 'json';
      /** The parsed payload. */
      payload: Json;
      /** SSE event name of the frame (informative only: dispatch is on the payload). */
      event: string;
      frame: number;
      at?: Position;
      /** Set on a client → server message of a WebSocket capture: passed through as `raw`. */
      direction?: 'send';
    }
  | { kind: 'done'; event: string; frame: number; at?: Position }
  | { kind: 'invalid'; text: string; message: string; event: string; frame: number; at?: Position }
  /** The frame's bytes were not valid UTF-8 (reported once per input by the normalizer). */
  | { kind: 'invalid_utf8'; offset: number; event: string; frame: number; at?: Position };

/** Fields every unified event may carry. */
export interface EventBase {
  /** Where the frame that produced this event began (only with `positions: true`). */
  at?: Position;
  /** Resume cursor: OpenAI `sequence_number`, Interactions `event_id`. */
  cursor?: number | string;
  /** OpenAI Chat `n > 1`: choice index, present only for choices other than 0. */
  choice?: number;
}

export type StopReason = 'end' | 'tool_use' | 'max_tokens' | 'refusal' | 'error' | 'other';

export type SignatureKind = 'thought_signature' | 'signature_delta' | 'encrypted_content' | 'redacted_thinking';

export interface Usage {
  /** Every prompt token, cached ones included. */
  inputTokens: number | null;
  /** Every generated token, reasoning included. */
  outputTokens: number | null;
  totalTokens: number | null;
  /** The reasoning part of outputTokens. */
  reasoningTokens: number | null;
  /** Prompt tokens read from cache. */
  cachedInputTokens: number | null;
}

export interface StartEvent extends EventBase {
  type: 'start';
  id: string | null;
  model: string | null;
  /** Stamped by the normalizer: the dialect that produced this response. */
  dialect?: DialectName;
}
export interface TextDeltaEvent extends EventBase {
  type: 'text_delta';
  index: number;
  /** Secondary position: OpenAI/xAI `content_index`. */
  contentIndex?: number;
  text: string;
  /** OpenAI's refusal channel. */
  refusal?: true;
  /** Audio transcript (Realtime / Live). */
  transcript?: true;
}
export interface ReasoningDeltaEvent extends EventBase {
  type: 'reasoning_delta';
  index: number;
  contentIndex?: number;
  text: string;
}
export interface ToolCallStartEvent extends EventBase {
  type: 'tool_call_start';
  index: number;
  id: string;
  name: string;
}
export interface ToolCallDeltaEvent extends EventBase {
  type: 'tool_call_delta';
  index: number;
  id: string;
  argumentsDelta: string;
}
export interface ToolCallDoneEvent extends EventBase {
  type: 'tool_call_done';
  index: number;
  id: string;
  name: string;
  /** The complete arguments as JSON text (authoritative when the provider sends it). */
  arguments: string;
}
export interface SignatureEvent extends EventBase {
  type: 'signature';
  index: number;
  signature: string;
  kind: SignatureKind;
}
export interface UsageEvent extends EventBase, Usage {
  type: 'usage';
  /** The provider's own usage object. */
  raw: Json;
}
export interface DoneEvent extends EventBase {
  type: 'done';
  stopReason: StopReason;
  /** The provider's own reason string (finish_reason, stop_reason, status…), or null. */
  providerReason: string | null;
}
export interface ErrorEvent extends EventBase {
  type: 'error';
  code: ErrorCode | (string & {});
  message: string;
  /** True when the response cannot continue after it. */
  terminal: boolean;
  /**
   * HTTP status of the fetch Response the error came in, when it was not 2xx
   * (set by `events()` / `finals()`, which see the Response): a 429's
   * `rate_limit_exceeded` carries 429, an empty 401's `http_error` 401.
   */
  status?: number;
  raw?: Json;
}
export interface RawEvent extends EventBase {
  type: 'raw';
  /** The provider event as received (or the frame text when it was not JSON). */
  event: Json;
}
export interface AudioDeltaEvent extends EventBase {
  type: 'audio_delta';
  index: number;
  mimeType: string | null;
  /** Base64 as received. */
  data: string;
}
export interface ToolCallCancelEvent extends EventBase {
  type: 'tool_call_cancel';
  ids: string[];
}
export interface SessionEvent extends EventBase {
  type: 'session';
  /** `go_away`: the server will close soon; `resumption`: a new resumption handle. */
  kind: 'go_away' | 'resumption';
  timeLeft?: string | null;
  newHandle?: string | null;
  resumable?: boolean | null;
}

export type UnifiedEvent =
  | StartEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallDoneEvent
  | SignatureEvent
  | UsageEvent
  | DoneEvent
  | ErrorEvent
  | RawEvent
  | AudioDeltaEvent
  | ToolCallCancelEvent
  | SessionEvent;

export type UnifiedEventType = UnifiedEvent['type'];

/** Exhaustiveness check for switches over closed unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
