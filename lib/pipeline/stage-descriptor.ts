/**
 * What each of the package's stage factories made: the kind of stage and the
 * options it was created with, so that compose() can recognise a chain of
 * the package's own stages and build the one fused stage for it (compose.ts).
 *
 * Kept beside the Transforms, in a module-level WeakMap: nothing of it is a
 * property of a stage, and nothing of it ever travels between stages. A
 * stage's record is dropped at its first input, so that only a stage nothing
 * was written to can be recognised.
 */
import type { Transform } from 'node:stream';
import type { FinalAccumulatorOptions } from '../accumulate/types.js';
import type { DecoderOptions } from '../dialects/decoder.js';
import type { NormalizerOptions } from '../dialects/normalizer.js';
import type { AnyFramerOptions, FramingOption } from '../framing/detect.js';
import type { TransformOptions } from './transform.js';

export type StageDescriptor =
  /** sseFramer() ('sse'), autoFramer() ('auto'), jsonArrayFramer(), jsonValuesFramer(), ndjsonFramer(). */
  | { kind: 'framer'; framing: FramingOption; options: AnyFramerOptions & TransformOptions }
  | { kind: 'decoder'; options: DecoderOptions & TransformOptions }
  | { kind: 'normalizer'; options: NormalizerOptions & TransformOptions }
  | { kind: 'finalAccumulator'; options: FinalAccumulatorOptions & TransformOptions };

interface StageRecord {
  descriptor: StageDescriptor;
  /** How many listeners the stream had when it was made (Transform adds its own). */
  listeners: number;
}

const records = new WeakMap<Transform, StageRecord>();

function listenerTotal(stream: Transform): number {
  let n = 0;
  for (const name of stream.eventNames()) n += stream.listenerCount(name);
  return n;
}

/**
 * Records what `stream` is (its options copied: changing the object later
 * changes nothing, as for the stage itself). Its first input drops the record.
 */
export function recordStage<T extends Transform>(stream: T, descriptor: StageDescriptor): T {
  records.set(stream, { descriptor: { ...descriptor, options: { ...descriptor.options } } as StageDescriptor, listeners: listenerTotal(stream) });
  const transform = stream._transform;
  stream._transform = function firstInput(this: T, chunk: unknown, encoding: BufferEncoding, callback) {
    records.delete(stream);
    stream._transform = transform;
    transform.call(this, chunk, encoding, callback);
  };
  return stream;
}

/**
 * What `stream` is, when one of the package's factories made it and nothing
 * has used it yet: never written to, ended, piped or read, no listener added,
 * nothing buffered, not destroyed. Otherwise (or in doubt) undefined.
 */
export function untouchedStage(stream: unknown): StageDescriptor | undefined {
  if (typeof stream !== 'object' || stream === null) return undefined;
  const record = records.get(stream as Transform);
  if (record === undefined) return undefined;
  const s = stream as Transform;
  const untouched =
    !s.destroyed &&
    !s.writableEnded &&
    !s.readableEnded &&
    !s.readableDidRead &&
    s.readableFlowing === null &&
    s.writableLength === 0 &&
    s.readableLength === 0 &&
    listenerTotal(s) === record.listeners;
  return untouched ? record.descriptor : undefined;
}
