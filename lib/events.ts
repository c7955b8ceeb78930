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
  /**
   * The lane of a log that carries several responses at once (a Responses
   * WebSocket `stream_id`, a subagent's thread): set on every event of a laned
   * response, whose `done` closes that lane's response alone. Absent on the
   * responses of a log that come one after another. See docs/lanes.md.
   */
  streamId?: string;
  /** The agent that produced the event (a multi-agent `agent` tag, a subagent's name), when the wire says. */
  agent?: string;
  /** Agent session streams: the session the event belongs to, when the wire names it (see SessionEvent). */
  session?: string;
  /** Agent session streams: the turn (one response of the session) the event belongs to, when the wire names it. */
  turn?: string;
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
  /** Seconds of audio billed, for a transcription billed by time (never turned into tokens); absent otherwise. */
  durationSeconds?: number;
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
/**
 * Fields of the tool-call events. `providerExecuted` marks a call the provider
 * runs itself (Anthropic `server_tool_use` / `mcp_tool_use`, OpenAI Responses
 * hosted items, Gemini code execution and server-side tools): the client must
 * not run it, and its outcome comes as a `tool_result` event.
 */
export interface ToolCallStartEvent extends EventBase {
  type: 'tool_call_start';
  index: number;
  id: string;
  name: string;
  providerExecuted?: true;
}
export interface ToolCallDeltaEvent extends EventBase {
  type: 'tool_call_delta';
  index: number;
  id: string;
  argumentsDelta: string;
  providerExecuted?: true;
}
export interface ToolCallDoneEvent extends EventBase {
  type: 'tool_call_done';
  index: number;
  id: string;
  name: string;
  /** The complete arguments as JSON text (authoritative when the provider sends it). */
  arguments: string;
  providerExecuted?: true;
}
/**
 * The provider's result of a call it ran itself (`providerExecuted`): search
 * results, fetched documents, code output, MCP output, as received.
 */
export interface ToolResultEvent extends EventBase {
  type: 'tool_result';
  /** The block / output index the result came in. */
  index: number;
  /** The id of the call this is the result of (the result's own id when the wire names no call). */
  id: string;
  /** The tool's name ('' when the wire does not say). */
  name: string;
  result: Json;
  /** The provider reported the call as failed. */
  isError?: true;
}
/** A source the text cites (a URL, a document, a file), with the cited range where the provider gives it. */
export interface CitationEvent extends EventBase {
  type: 'citation';
  /** The text block the citation belongs to (the block index of its text deltas). */
  index: number;
  url?: string;
  title?: string;
  /** What is cited when it is not a URL: a document or file id or name, a domain. */
  source?: string;
  /** The cited passage, as the provider quotes it. */
  citedText?: string;
  /** Offsets into the block's text (UTF-16 code units of the final text: see the dialect notes). */
  start?: number;
  end?: number;
  /** The provider's own citation object. */
  raw: Json;
}
/**
 * A file produced inside the response (an image generated by a hosted tool,
 * a Gemini `inlineData` part). `partial` marks a preview (OpenAI
 * `partial_image`): shown as events only, never in the final.
 */
export interface FileEvent extends EventBase {
  type: 'file';
  index: number;
  /** The call or item that produced it, when the wire says. */
  id?: string;
  mimeType: string | null;
  /** Base64, as received. */
  data: string;
  partial?: true;
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
  /** The language a transcription names at its end (OpenAI's `languages[0].code`), when it does. */
  language?: string;
  stopReason: StopReason;
  /** The provider's own reason string (finish_reason, stop_reason, status…), or null. */
  providerReason: string | null;
  /**
   * A response of several choices (OpenAI Chat `n > 1`): how each one
   * stopped, in choice order (choice 0's is the done's own). The response
   * still has this one `done`; absent when it had a single choice.
   */
  choices?: DoneChoice[];
}
/** How one choice of a several-choice response stopped (see DoneEvent.choices). */
export interface DoneChoice {
  choice: number;
  stopReason: StopReason;
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
/**
 * Session-scope news, outside any response. Realtime sessions: `go_away` (the
 * server will close soon), `resumption` (a new resumption handle). Agent
 * session streams (docs/dialects.md, "Agent sessions"): `start` (a session
 * begins or is first seen), `usage` (the session's own cumulative usage
 * snapshot: each replaces the previous one, never added to the turns'),
 * `end` (the session stopped: `stop`, pending ids, its cumulative usage and
 * cost when the wire gives them). The final accumulator folds these into one
 * `kind: 'session'` final per stop (lib/accumulate/session.ts).
 */
export interface SessionEvent extends EventBase {
  type: 'session';
  kind: 'go_away' | 'resumption' | 'start' | 'usage' | 'end';
  timeLeft?: string | null;
  newHandle?: string | null;
  resumable?: boolean | null;
  /** `start`: the session's id and model, when the wire says. */
  id?: string | null;
  model?: string | null;
  /** `usage` / `end`: the session's cumulative usage, when the wire gives it. */
  usage?: Usage;
  /** `usage` / `end`: what the session cost so far, when the wire says. */
  cost?: SessionCost;
  /** `end`: why the session stopped. */
  stop?: SessionStop;
  /** `end`: the provider's own reason string. */
  providerReason?: string | null;
  /** `end` with stop `requires_action`: the ids of the calls or events the session waits on. */
  pending?: string[];
  /** `end`: the number of turns the wire itself reports (Claude Agent SDK `num_turns`). */
  turns?: number;
  /** `usage` / `end`: the provider event as received. */
  raw?: Json;
}

/** Why an agent session stopped (its provider's reason is kept in `providerReason`). */
export type SessionStop = 'end_turn' | 'requires_action' | 'retries_exhausted' | 'budget_reached' | 'max_turns' | 'failed' | 'cancelled' | 'terminated' | 'other';

/** Money, as the provider states it: `amount` in `currency` units (Managed Agents' minor units are turned into major ones). */
export interface SessionCost {
  amount: number;
  currency: string;
}

/**
 * What the user said, transcribed (Realtime translation's
 * `session.input_transcript.delta`, Live's `inputTranscription`): kept apart
 * from the model's own text and transcripts (the final's `inputTranscript`).
 */
export interface InputTranscriptEvent extends EventBase {
  type: 'input_transcript';
  text: string;
  /** The language the provider names for it (Live's `languageCode`), when it does. */
  language?: string;
}
/**
 * A finished piece of a transcript with its times and speaker (OpenAI's
 * diarized `transcript.text.segment`, an xAI STT utterance ended by
 * `speech_final`): its text also came as `text_delta`s.
 */
export interface SegmentEvent extends EventBase {
  type: 'segment';
  /** The segment id, when the wire gives one. */
  id?: string;
  text: string;
  /** Seconds from the start of the audio. */
  start?: number;
  end?: number;
  speaker?: string;
  /** Audio channel (xAI multichannel `channel_index`). */
  channel?: number;
}
/**
 * Something the provider says that is neither content nor an error (Lyria's
 * `filteredPrompt`: a prompt it did not use, the music goes on).
 */
export interface NoticeEvent extends EventBase {
  type: 'notice';
  code: string;
  message: string;
  /** The provider's own object. */
  raw: Json;
}


/**
 * Input added to a running response by the client, and the server's answer:
 * OpenAI/xAI Responses WebSocket `response.steer.accepted|pending|failed`
 * (`kind: 'steer'`) and `response.inject.created|failed` (`kind: 'inject'`).
 * Never opens a response; a `failed` one is followed by a non-terminal
 * `error` of the same lane.
 */
export interface SteerEvent extends EventBase {
  type: 'steer';
  kind: 'steer' | 'inject';
  status: 'accepted' | 'pending' | 'failed';
  /** The steer's id (`steer.id`), when the wire gives one. */
  id: string | null;
  /** The response the input was added to (`previous_response_id` / `response_id`). */
  responseId: string | null;
  /** The input as the client sent it (from the capture's send side, or echoed by a failure), when known. */
  input?: Json;
  /** The input's text (a string input, or its messages' text parts joined), when it has some. */
  text?: string;
  /** `pending`: why (`waiting_for_required_input`) and what the server waits for. */
  reason?: string;
  requiredInput?: Json;
  /** The provider event as received. */
  raw: Json;
}

export type UnifiedEvent =
  | StartEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallDoneEvent
  | ToolResultEvent
  | CitationEvent
  | FileEvent
  | SignatureEvent
  | UsageEvent
  | DoneEvent
  | ErrorEvent
  | RawEvent
  | AudioDeltaEvent
  | ToolCallCancelEvent
  | SessionEvent
  | InputTranscriptEvent
  | SegmentEvent
  | NoticeEvent
  | SteerEvent;

export type UnifiedEventType = UnifiedEvent['type'];

/** Exhaustiveness check for switches over closed unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
