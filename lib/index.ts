/** wirefold: LLM provider streams → one unified event vocabulary → final results. */

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
  Json,
  JsonObject,
  Position,
  ProviderEvent,
  RawEvent,
  ReasoningDeltaEvent,
  SessionCost,
  SessionEvent,
  SessionStop,
  SignatureEvent,
  SignatureKind,
  StartEvent,
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
} from './events.js';
export { assertNever } from './events.js';
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
} from './errors.js';

// Stages as Transforms
export { autoFramer, jsonArrayFramer, jsonValuesFramer, ndjsonFramer, sseFramer, type FramerTransform } from './pipeline/framers.js';
export { decoder, messageDecoder, normalizer } from './pipeline/stages.js';
export {
  finalAccumulator,
  signatureAccumulator,
  textAccumulator,
  toolArgsAccumulator,
  usageAccumulator,
  type AccumulatorTransform,
} from './pipeline/accumulators.js';
export { byteStageTransform, objectStageTransform, StageTransform, type TransformOptions } from './pipeline/transform.js';

// The fused pipeline and its shells
export { createStream, type CreateStreamOptions, type OutputMode, type StreamOutput } from './pipeline/create-stream.js';
export { compose } from './pipeline/compose.js';
export { events, finals, type ByteSource, type IterateOptions, type ResponseLike } from './pipeline/iterate.js';
export { read, type Reading } from './pipeline/read.js';

// The same stages as WHATWG TransformStreams (also the web entry's, lib/web/: browsers, workers, edge runtimes, Deno, Bun)
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
} from './web/streams.js';
export { TranscodeStream } from './web/transcode-stream.js';
export { StageTransformStream, type WebStreamOptions } from './web/stage-stream.js';

// Writing: unified events → another provider's wire, with a loss report
export { encoder } from './pipeline/encoder.js';
export type { EncoderOptions, LossEntry, LossKind, LossReport, TargetName } from './encode/types.js';

// Records mode: one capture per JSON Lines record, one output record each, in order; finals as flat rows
export {
  finalToRow,
  records,
  recordToRows,
  RecordsTransform,
  ROW_COLUMNS,
  type FinalRow,
  type RecordError,
  type RecordErrorCode,
  type RecordInput,
  type RecordOutput,
  type RecordRow,
  type RecordRowColumns,
  type RecordRowsOptions,
  type RecordsOptions,
} from './records/index.js';

// Pure cores (no node:stream), for synchronous use and custom shells
export { chain, runStage, type Emit, type Stage } from './stage.js';
export { createEncoder } from './encode/encoder.js';
export { targetNames } from './encode/registry.js';
export { createSseFramer, type SseFramerOptions } from './framing/sse.js';
export { createJsonArrayFramer, type JsonArrayFramerOptions } from './framing/json-array.js';
export { createJsonValuesFramer, type JsonValuesFramerOptions } from './framing/json-values.js';
export { createNdjsonFramer, type NdjsonFramerOptions } from './framing/ndjson.js';
export { createAutoFramer, createFramer, detectFraming, type FramingName, type FramingOption } from './framing/detect.js';
export type { FramerOptions } from './framing/options.js';
export type { Chunk } from './framing/bytes.js';
export { createDecoder, type DecoderOptions } from './dialects/decoder.js';
export { createMessageDecoder, type CaptureMode, type CaptureOptions, type MessageInput } from './dialects/capture.js';
export { createNormalizer, type Normalizer, type NormalizerOptions } from './dialects/normalizer.js';
export { detectDialect, dialectNames } from './dialects/registry.js';
export type { DialectContext, DialectDefinition, ResponseHandler } from './dialects/types.js';
export { createEventsStage, decodeAll, type EventsStageOptions } from './pipeline/events-stage.js';
export * from './accumulate/index.js';

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
} from './resume.js';
