/** The final result of one response and the accumulators' option types. */
import type { DialectName, Json, SegmentEvent, SessionCost, SessionStop, SignatureKind, StopReason, Usage } from '../events.js';

export interface TextContentBlock {
  type: 'text';
  text: string;
}
export interface RefusalContentBlock {
  type: 'refusal';
  text: string;
}
export interface ReasoningContentBlock {
  type: 'reasoning';
  text: string;
  /** The block's signature (Anthropic signature / redacted data, OpenAI encrypted_content, Gemini thoughtSignature). */
  signature?: string;
}
export interface ToolCallContentBlock {
  type: 'tool_call';
  id: string;
  name: string;
  /** Parsed JSON value; the raw text when it was not valid JSON (see `errors`). */
  arguments: Json;
  /** A call the provider ran itself: not in `toolCalls` (its result is a `tool_result` block). */
  providerExecuted?: true;
}
/** The provider's result of a call it ran itself, as received. */
export interface ToolResultContentBlock {
  type: 'tool_result';
  /** The call's id. */
  id: string;
  name: string;
  result: Json;
  isError?: true;
}
/** A file generated inside the response (the completed one; partial previews are events only). */
export interface FileContentBlock {
  type: 'file';
  /** The call or item that produced it, when the wire says. */
  id?: string;
  mimeType: string | null;
  /** Base64, as received. */
  data: string;
}
export type ContentBlock =
  | TextContentBlock
  | RefusalContentBlock
  | ReasoningContentBlock
  | ToolCallContentBlock
  | ToolResultContentBlock
  | FileContentBlock;

/** A source the text cites (see the `citation` event). */
export interface FinalCitation {
  /** The text block it belongs to. */
  index: number;
  url?: string;
  title?: string;
  source?: string;
  citedText?: string;
  start?: number;
  end?: number;
}

export interface FinalToolCall {
  id: string;
  name: string;
  /** Parsed JSON value; `{}` for empty arguments; the raw text when it was not valid JSON. */
  arguments: Json;
}

export interface FinalSignature {
  index: number;
  signature: string;
  kind: SignatureKind;
}

export interface FinalError {
  code: string;
  message: string;
  /** HTTP status of a failed fetch Response, as on the error event (`finals()` only). */
  status?: number;
}

export interface FinalAudio {
  /** MIME type of the first audio delta that named one. */
  mimeType: string | null;
  /** Samples per second, when the MIME type says (`rate=`: raw PCM). */
  sampleRate?: number;
  /** Decoded byte count of all audio deltas (computed from the base64 length). */
  bytes: number;
}

/** A finished piece of a transcript (see the `segment` event). */
export type FinalSegment = Pick<SegmentEvent, 'id' | 'text' | 'start' | 'end' | 'speaker' | 'channel'>;

/** A provider notice (see the `notice` event). */
export interface FinalNotice {
  code: string;
  message: string;
}

/** What one choice produced (OpenAI Chat `n > 1`). */
export interface FinalChoice {
  content: ContentBlock[];
  text: string;
  refusal: string | null;
  reasoning: string;
  toolCalls: FinalToolCall[];
  citations: FinalCitation[];
  /** Null for a choice k > 0 whose own `done` never came. */
  stopReason: StopReason | null;
  providerReason: string | null;
}

export interface FinalResult {
  dialect: DialectName | null;
  id: string | null;
  model: string | null;
  /** Choice 0's blocks in order of first appearance. */
  content: ContentBlock[];
  /** Visible text blocks concatenated (refusal not included). */
  text: string;
  /** The refusal channel's text, or null when there was none. */
  refusal: string | null;
  reasoning: string;
  /** The calls the client must execute (provider-executed calls are in `content` only). */
  toolCalls: FinalToolCall[];
  /** Sources the text cites, in stream order. */
  citations: FinalCitation[];
  /** All null when the response reported no usage. */
  usage: Usage;
  stopReason: StopReason;
  providerReason: string | null;
  signatures: FinalSignature[];
  errors: FinalError[];
  audio: FinalAudio | null;
  /** What the user said, transcribed (`input_transcript` events), only when some came. */
  inputTranscript?: string;
  /** Transcript segments (`segment` events), only when some came. */
  segments?: FinalSegment[];
  /** The transcript's language, only when the `done` names it. */
  language?: string;
  /** Provider notices (`notice` events), only when some came. */
  notices?: FinalNotice[];
  /** Only when events of a choice k > 0 were seen: one entry per choice, `choices[k]` is choice k. */
  choices?: FinalChoice[];
  /** The lane of a laned response (its events' `streamId`), only then. */
  streamId?: string;
  /** The agent tag of the response's `start` event, only when it had one. */
  agent?: string;
  /** Agent session streams: the session and turn of this final, when the wire names them. */
  session?: string;
  turn?: string;
  /**
   * `'session'` on an agent session's summary (one per stop of the session,
   * after its turns' finals): no content of its own, `usage` the session's
   * totals, `id` the session's id, and the rest in `summary`.
   */
  kind?: 'session';
  summary?: SessionSummary;
}

/** What an agent session did, up to the stop it reports (see lib/accumulate/session.ts). */
export interface SessionSummary {
  /** Turns seen (their finals), subagents' included; `failed` of them ended in an error. */
  turns: number;
  failedTurns: number;
  /** The turn count the wire itself reports, when it does (Claude Agent SDK `num_turns`). */
  reportedTurns: number | null;
  /** Why the session stopped; null when the input ended before it said. */
  stop: SessionStop | null;
  /** With `requires_action`: what the session waits on (call or event ids). */
  pending: string[];
  /** `session`: `usage` is the session's own cumulative figure; `turns`: the sum of the turns' usage (the wire gave none). */
  usageFrom: 'session' | 'turns';
  cost: SessionCost | null;
}

/** Limits of the tool-argument accumulator. */
export interface ToolArgsAccumulatorOptions {
  /** Buffered argument text per tool call, in UTF-8 bytes. @defaultValue 8 MiB */
  maxToolArgumentBytes?: number;
  /** Tool calls per response (the final accumulator counts content blocks too). @defaultValue 10,000 */
  maxBlocks?: number;
}

/** Limits of the text accumulator. */
export interface TextAccumulatorOptions {
  /** Buffered text + refusal + reasoning per response, in UTF-8 bytes. @defaultValue 64 MiB */
  maxTextBytes?: number;
  /** Text, refusal and reasoning blocks per response. @defaultValue 10,000 */
  maxBlocks?: number;
}

/** Limits of the final accumulator (each also accepts Infinity to disable it). */
export interface FinalAccumulatorOptions {
  /** Buffered argument text per tool call, in UTF-8 bytes. @defaultValue 8 MiB */
  maxToolArgumentBytes?: number;
  /** Content blocks + tool calls per response (all choices together). @defaultValue 10,000 */
  maxBlocks?: number;
  /** Buffered text + refusal + reasoning per response, in UTF-8 bytes. @defaultValue 64 MiB */
  maxTextBytes?: number;
}
