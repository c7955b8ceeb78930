/** Accumulators: unified events → text, tool arguments, usage, signatures and one final result per response. */
export { createFinalAccumulator, type FinalAccumulator } from './final.js';
export { serializeLanes } from './lanes.js';
export { createTextAccumulator, type TextAccumulator, type TextBlockInfo, type TextBlockType } from './text.js';
export { createPartialJson, type PartialJson } from './partial-json.js';
export { createToolArgsAccumulator, parseArguments, type ToolArgsAccumulator, type ToolCallInfo } from './tool-args.js';
export { createUsageAccumulator, emptyUsage, type UsageAccumulator } from './usage.js';
export { createSignatureAccumulator, type SignatureAccumulator } from './signatures.js';
export { base64DecodedBytes } from './audio.js';
export {
  DEFAULT_MAX_BLOCKS,
  DEFAULT_MAX_TEXT_BYTES,
  DEFAULT_MAX_TOOL_ARGUMENT_BYTES,
} from './limits.js';
export type {
  ContentBlock,
  FinalAccumulatorOptions,
  FinalAudio,
  FileContentBlock,
  FinalChoice,
  FinalCitation,
  FinalError,
  FinalNotice,
  FinalResult,
  FinalSegment,
  FinalSignature,
  FinalToolCall,
  ReasoningContentBlock,
  RefusalContentBlock,
  SessionSummary,
  TextAccumulatorOptions,
  TextContentBlock,
  ToolArgsAccumulatorOptions,
  ToolCallContentBlock,
  ToolResultContentBlock,
} from './types.js';
