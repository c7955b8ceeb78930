/**
 * Another provider's wire from any input, as one TransformStream: createStream's
 * `to` for the web. A file of its own so that a bundle of WirefoldStream alone
 * leaves the encoders out.
 */
import type { Chunk } from '../framing/bytes.js';
import { targetNames } from '../encode/registry.js';
import type { TargetName } from '../encode/types.js';
import { CREATE_STREAM_OPTIONS } from '../pipeline/option-keys.js';
import { makeFusedStage, type GuardedStage } from '../pipeline/output-stage.js';
import { resolveStreamOptions, type CreateStreamOptions } from '../pipeline/stream-options.js';
import { makeTranscoder } from '../pipeline/transcode.js';
import { StageTransformStream } from './stage-stream.js';

const OPTIONS = CREATE_STREAM_OPTIONS.filter((k) => k !== 'output');

/** Bytes (or strings) of any wire in, the `to` wire's text out; what it cannot carry is reported per response (`onLoss`). */
export class TranscodeStream extends StageTransformStream<Chunk, string> {
  constructor(options: Omit<CreateStreamOptions, 'output'> & { to: TargetName }) {
    const resolved = resolveStreamOptions(options, OPTIONS, 'TranscodeStream', undefined, targetNames);
    const stage = makeFusedStage(resolved, makeTranscoder) as GuardedStage<string>;
    super(stage, true, { ...resolved.transform, signal: resolved.signal }, (err, emit) => stage.abort(err, emit));
  }
}
