/**
 * createStream: one Node Transform from bytes to unified events, final results
 * or visible text, around the fused stage (output-stage.ts).
 */
import type { FinalResult } from '../accumulate/types.js';
import type { UnifiedEvent } from '../events.js';
import type { Chunk } from '../framing/bytes.js';
import { CREATE_STREAM_OPTIONS } from './option-keys.js';
import { abortError, makeFusedStage, makeGuardedEventsStage, type GuardedEventsStage, type GuardedStage } from './output-stage.js';
import { targetNames } from '../encode/registry.js';
import { makeByteTranscoder, makeTranscoder } from './transcode.js';
import { resolveStreamOptions, type CreateStreamOptions, type OutputMode, type ResolvedStreamOptions, type StreamOutput } from './stream-options.js';
import { StageTransform } from './transform.js';
import type { LossReport, TargetName } from '../encode/types.js';

export type { CreateStreamOptions, OutputMode, StreamOutput } from './stream-options.js';
export {
  abortError,
  createTextStage,
  errorFromEvent,
  fuseText,
  makeGuardedEventsStage,
  type GuardedEventsStage,
  type GuardedStage,
  type TextTakingStage,
} from './output-stage.js';

/** The events stage with the lenient/strict policy (see makeGuardedEventsStage), from createStream's options. */
export function createGuardedEventsStage(options: CreateStreamOptions = {}): GuardedEventsStage {
  return makeGuardedEventsStage(resolveStreamOptions(options, CREATE_STREAM_OPTIONS, 'createGuardedEventsStage()', undefined, targetNames));
}

/** The fused stage behind createStream (also used by the CLI): createStream's options, `to` included. */
export function createOutputStage(options: CreateStreamOptions = {}): GuardedStage<UnifiedEvent | FinalResult | string> {
  return makeOutputStage(resolveStreamOptions(options, CREATE_STREAM_OPTIONS, 'createOutputStage()', undefined, targetNames));
}

/** The fused stage from options already resolved, `to` included. */
export function makeOutputStage(options: ResolvedStreamOptions): GuardedStage<UnifiedEvent | FinalResult | string> {
  return makeFusedStage(options, makeTranscoder);
}

/** One Transform from bytes (Buffers or strings) to the chosen output, stages fused, with backpressure. */
export function createStream(options: CreateStreamOptions & { to: TargetName }): StageTransform<Chunk, string>;
export function createStream(options: CreateStreamOptions & { output: 'final' }): StageTransform<Chunk, FinalResult>;
export function createStream(options: CreateStreamOptions & { output: 'text' }): StageTransform<Chunk, string>;
export function createStream(options?: CreateStreamOptions & { output?: 'events' }): StageTransform<Chunk, UnifiedEvent>;
export function createStream(options?: CreateStreamOptions): StageTransform<Chunk, StreamOutput<OutputMode>>;
export function createStream<O extends StreamOutput<OutputMode>>(options?: CreateStreamOptions): StageTransform<Chunk, O> {
  let resolved = resolveStreamOptions(options, CREATE_STREAM_OPTIONS, 'createStream()', undefined, targetNames);
  const signal = resolved.signal;
  let stream: StageTransform<Chunk, O> | null = null;
  if (resolved.to !== undefined) {
    // each loss report is also a 'loss' event of the stream
    const onLoss = resolved.onLoss;
    resolved = { ...resolved, onLoss: (report: LossReport) => (onLoss?.(report), stream?.emit('loss', report)) };
  }
  // The overloads give each output mode its item type; the stage emits that mode's items (`to`: bytes,
  // a buffer per 64 KiB block of an input chunk's output, which the Transform hands on as they are).
  const stage = (resolved.to !== undefined ? makeByteTranscoder(resolved, resolved.to, makeGuardedEventsStage) : makeOutputStage(resolved)) as GuardedStage<O>;
  const bytesOut = resolved.output === 'text' || resolved.to !== undefined;
  stream = new StageTransform<Chunk, O>(stage, false, resolved.transform, !bytesOut);
  if (signal !== undefined) {
    const onAbort = (): void => {
      const err = abortError(signal);
      stream!.stop(err, (emit) => stage.abort(err, emit));
    };
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      stream.once('close', () => signal.removeEventListener('abort', onAbort));
    }
  }
  return stream;
}

