/**
 * wirefold for browsers, workers, edge runtimes, Deno and Bun (the `browser`,
 * `worker`, `edge-light`, `deno` and `bun` export conditions): the same
 * stages, fused stage and iterables, with WHATWG TransformStreams in place of
 * the Node Transforms. Nothing reachable from here imports a Node built-in
 * (test/architecture.test.ts): bytes are Uint8Array, text goes through
 * TextDecoder (lib/bytes/).
 */

// The vocabularies
export type {
  AudioDeltaEvent,
  CitationEvent,
  DialectName,
  DialectOption,
  DoneChoice,
  DoneEvent,
  ErrorEvent,
  EventBase,
  FileEvent,
  Frame,
  InputTranscriptEvent,
  Json,
  JsonObject,
  NoticeEvent,
  Position,
  ProviderEvent,
  RawEvent,
  ReasoningDeltaEvent,
  SegmentEvent,
  SessionCost,
  SessionEvent,
  SessionStop,
  SignatureEvent,
  SignatureKind,
  StartEvent,
  SteerEvent,
  StopReason,
  TextDeltaEvent,
  ToolCallCancelEvent,
  ToolCallDeltaEvent,
  ToolCallDoneEvent,
  ToolCallStartEvent,
  ToolResultEvent,
  UnifiedEvent,
  UnifiedEventType,
  Usage,
  UsageEvent,
} from '../events.js';
export { assertNever } from '../events.js';
export {
  AbortError,
  ChunkTypeError,
  FrameTooLargeError,
  JsonArrayError,
  LimitExceededError,
  OptionError,
  StreamError,
  type ErrorCode,
  type StreamErrorOptions,
} from '../errors.js';

// Stages and the fused stage as TransformStreams
export {
  AutoFramerStream,
  DecoderStream,
  EncoderStream,
  FinalAccumulatorStream,
  JsonArrayFramerStream,
  JsonValuesFramerStream,
  MessageDecoderStream,
  NdjsonFramerStream,
  NormalizerStream,
  SignatureAccumulatorStream,
  SseFramerStream,
  TextAccumulatorStream,
  ToolArgsAccumulatorStream,
  UsageAccumulatorStream,
  WirefoldStream,
  type WirefoldStreamConstructor,
  type WirefoldStreamOptions,
} from './streams.js';
export { TranscodeStream } from './transcode-stream.js';
export { StageTransformStream, type WebStreamOptions } from './stage-stream.js';

export type { CreateStreamOptions, OutputMode, StreamOutput } from '../pipeline/stream-options.js';

// Any byte source: a web ReadableStream, a fetch Response, an async iterable
export { events, finals, type ByteSource, type IterateOptions, type ResponseLike } from '../pipeline/iterate.js';
export { read, type Reading } from '../pipeline/read.js';
export type { EncoderOptions, LossEntry, LossKind, LossReport, TargetName } from '../encode/types.js';

// Pure cores (no node:stream), for synchronous use and custom shells
export { chain, runStage, type Emit, type Stage } from '../stage.js';
export { createEncoder } from '../encode/encoder.js';
export { targetNames } from '../encode/registry.js';
export { createSseFramer, type SseFramerOptions } from '../framing/sse.js';
export { createJsonArrayFramer, type JsonArrayFramerOptions } from '../framing/json-array.js';
export { createJsonValuesFramer, type JsonValuesFramerOptions } from '../framing/json-values.js';
export { createNdjsonFramer, type NdjsonFramerOptions } from '../framing/ndjson.js';
export { createAutoFramer, createFramer, detectFraming, type FramingName, type FramingOption } from '../framing/detect.js';
export type { FramerOptions } from '../framing/options.js';
export type { Chunk } from '../framing/bytes.js';
export { createDecoder, type DecoderOptions } from '../dialects/decoder.js';
export { createMessageDecoder, type CaptureMode, type CaptureOptions, type MessageInput } from '../dialects/capture.js';
export { createNormalizer, type Normalizer, type NormalizerOptions } from '../dialects/normalizer.js';
export { detectDialect, dialectNames } from '../dialects/registry.js';
export type { DialectContext, DialectDefinition, LaneRoute, LaneRouter, ResponseHandler } from '../dialects/types.js';
export { createEventsStage, decodeAll, type EventsStageOptions } from '../pipeline/events-stage.js';
export * from '../accumulate/index.js';

// Resuming a cut stream (OpenAI Responses `sequence_number`, Gemini Interactions `event_id`)
export {
  createResumeFilter,
  createResumeStage,
  createResumeTracker,
  cutOffStart,
  resumeEvents,
  type Cursor,
  type OpenToolCall,
  type ResumeFrom,
  type ResumePoint,
  type ResumeStage,
  type ResumeTracker,
} from '../resume.js';
