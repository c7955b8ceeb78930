/** wirefold: LLM provider streams → one unified event vocabulary → final results. */

// Everything that runs anywhere: the vocabularies, the TransformStreams, the
// iterables and the pure cores (lib/web/index.ts, the web entry). Add exports
// there unless they need Node (node:stream, node:fs): those go below.
export * from './web/index.js';

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

// The fused pipeline as a Node Transform
export { createStream } from './pipeline/create-stream.js';
export { compose } from './pipeline/compose.js';

// Writing: unified events → another provider's wire, with a loss report
export { encoder } from './pipeline/encoder.js';

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
