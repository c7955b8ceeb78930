/** The encoder stage as a Transform: unified events in (object mode), the target wire's bytes out. */
import type { UnifiedEvent } from '../events.js';
import { makeEncoder, resolveEncoderOptions } from '../encode/encoder.js';
import type { EncoderOptions, LossReport } from '../encode/types.js';
import { optionsObject } from '../options.js';
import { StageTransform, type TransformOptions } from './transform.js';

/**
 * `encoder({ to })`: writes unified events as the wire of `to`. Each response
 * that lost something emits a `'loss'` event with its LossReport (and calls
 * `onLoss`); with `strict: true` the stream fails with a `lossy_encoding`
 * StreamError instead.
 */
export function encoder(options: EncoderOptions & TransformOptions): StageTransform<UnifiedEvent, string> {
  const o = optionsObject(options);
  const resolved = resolveEncoderOptions({ to: o.to, strict: o.strict, onLoss: o.onLoss });
  let stream: StageTransform<UnifiedEvent, string> | null = null;
  const stage = makeEncoder({
    ...resolved,
    onLoss: (report: LossReport) => {
      resolved.onLoss?.(report);
      stream?.emit('loss', report);
    },
  });
  const transform: TransformOptions = {};
  if (o.writableHighWaterMark !== undefined) transform.writableHighWaterMark = o.writableHighWaterMark;
  stream = new StageTransform<UnifiedEvent, string>(stage, true, transform, false);
  return stream;
}
